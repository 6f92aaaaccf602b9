#pragma once
// What a controller needs to know about a pod of a DaemonSet it owns (a pool's gateway, a
// profile's client), read from the Pod object (pure).

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "operator/k8s/json_object.h"

namespace rdmastack::controllers {

// The most of a container's message an OwnedPod keeps, in characters. A termination message is
// up to 4 KiB (a log tail under FallbackToLogsOnError: 2 KiB), and the controllers quote it into
// status fields of at most 1024 characters (failingNodes[].message, eligibleNodes[].message) next
// to their own words (up to about 170 characters; the status writer clips what still does not
// fit). A client refusal names every refused file, so most of the room goes to the message.
inline constexpr size_t kMaxPodMessageLength = 850;

struct OwnedPod {
  std::string name;
  std::string uid;
  std::string node;
  std::string component;  // kComponentLabel: gateway, client, client-uninstall
  // A gateway pod's labels (crds/types/gatewaypool_api.h); empty on other pods.
  std::string track;            // kTrackLabel
  std::string library_version;  // kLibraryVersionLabel
  std::string template_hash;    // kTemplateHashLabel: the DaemonSet template it was made from
  std::string ip;               // status.podIP: the node's address (host network)
  bool ready = false;           // the Ready condition
  bool terminating = false;     // deletionTimestamp set
  int32_t restarts = 0;
  // Why the gateway container is not running, when it is not: the kubelet's waiting reason
  // (CrashLoopBackOff, CreateContainerConfigError, ...) and the last exit's message: its end,
  // at most kMaxPodMessageLength, in whole lines where they fit (LastWords).
  std::string waiting_reason;
  std::string message;
  friend bool operator==(const OwnedPod&, const OwnedPod&) = default;
};

// The end of a container's message, at most kMaxPodMessageLength characters: a process says why
// it stopped last. Whole lines are kept where they fit, after a line "… (N bytes cut)", so that
// a refusal line the controllers look for at the start of a line still starts one.
std::string LastWords(std::string_view message);

// `container`: the DaemonSet's main container, whose waiting reason and restarts count (with
// every init container's); `<container>-<rail>` count too (a multi-rail gateway's).
OwnedPod ReadOwnedPod(const k8s::JsonObject& pod, std::string_view container);

// Which of two pods of one DaemonSet on one node to go by (a replacement in progress): the live
// one.
inline bool Supersedes(const OwnedPod& candidate, const OwnedPod& kept) {
  return kept.terminating && !candidate.terminating;
}

// Each node's pods, one per slot (a gateway's track; a client or its uninstaller): the first of
// `pods` in that slot unless a later one supersedes it. Pods not on a node yet are left out.
using PodsByNode = std::map<std::string, std::map<std::string, OwnedPod>>;
PodsByNode GroupByNode(const std::vector<OwnedPod>& pods,
                       const std::function<std::string(const OwnedPod&)>& slot);

// Reasons that will not clear by waiting: the pod is failing, not starting.
bool IsFailing(const OwnedPod& pod);

}  // namespace rdmastack::controllers
