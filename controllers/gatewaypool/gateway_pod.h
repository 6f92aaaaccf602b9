#pragma once
// What the pool controller needs to know about one of its gateway pods, read from the Pod
// object (pure).

#include <string>

#include "operator/k8s/json_object.h"

namespace rdmastack::gatewaypool {

struct GatewayPod {
  std::string name;
  std::string uid;
  std::string node;
  std::string track;            // kTrackLabel
  std::string library_version;  // kLibraryVersionLabel
  std::string template_hash;    // kTemplateHashLabel: the DaemonSet template it was made from
  std::string ip;               // status.podIP: the node's address (host network)
  bool ready = false;           // the Ready condition
  bool terminating = false;     // deletionTimestamp set
  int32_t restarts = 0;
  // Why the gateway container is not running, when it is not: the kubelet's waiting reason
  // (CrashLoopBackOff, CreateContainerConfigError, ...) and the last exit's message.
  std::string waiting_reason;
  std::string message;
  friend bool operator==(const GatewayPod&, const GatewayPod&) = default;
};

GatewayPod ReadGatewayPod(const k8s::JsonObject& pod);

// Which of two pods of one track on one node to go by (a replacement in progress): the live one.
inline bool Supersedes(const GatewayPod& candidate, const GatewayPod& kept) {
  return kept.terminating && !candidate.terminating;
}

// Reasons that will not clear by waiting: the node's gateway is failing, not starting.
bool IsFailing(const GatewayPod& pod);

}  // namespace rdmastack::gatewaypool
