#pragma once
// Steers the agent hub's Service to the leader. Only the leader listens for agents, so a Service
// that selected every operator pod sent about half of the agents' connections to a standby's
// closed port after a hand-over; with jittered exponential backoff an agent could then miss the
// new leader for minutes. The chart's Service therefore also selects
// `rdmastack.io/agent-hub: serving`, which the leader puts on its own pod once the hub listens
// and takes off before the hub stops (the pattern of Vault's `vault-active` label).
//
// A leader that lost its lease without stopping cleanly (killed, partitioned, its container
// restarted in the same pod) cannot take its label off, so the next leader takes it off every
// other pod of the namespace before it labels its own.
//
// RBAC: list and patch pods in the operator's namespace.

#include <string>
#include <vector>

#include "base/status.h"
#include "operator/k8s/client.h"

namespace rdmastack::agenthub {

inline constexpr char kServingPodLabelKey[] = "rdmastack.io/agent-hub";
inline constexpr char kServingPodLabelValue[] = "serving";

// The merge patch that sets the label (serving) or removes it.
std::string ServingLabelPatch(bool serving);
// Pods of `pods` that carry the label, other than `own_pod`: a former leader's.
std::vector<std::string> StaleServingPods(const std::vector<k8s::JsonObject>& pods,
                                          const std::string& own_pod);

class ServingPodLabel {
 public:
  // `writer`: the leader-fenced client. `own_pod` in `namespace_`: this process's pod.
  ServingPodLabel(k8s::Client& writer, std::string namespace_, std::string own_pod);

  // Takes the label off a former leader's pod, then puts it on ours. An error names the pod and
  // what the API server said.
  Status Set();
  // Best effort, at shutdown: a failure is logged (the next leader clears it).
  void Clear();

 private:
  Status Patch(const std::string& pod, bool serving);

  k8s::Client& writer_;
  const std::string namespace_;
  const std::string own_pod_;
};

}  // namespace rdmastack::agenthub
