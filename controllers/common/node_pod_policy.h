#pragma once
// What every pod the operator runs on a node (agent, gateway, client) gets from the install, as
// the GPU and Network operators give their DaemonSets: the registry credentials of the chart
// (image.pullSecrets) and a priority class (nodePods.priorityClassName). The storage path is
// node infrastructure: under memory pressure the kubelet evicts workloads before it, and the
// scheduler may preempt a workload to place it on a node that the pool or profile selects.

#include <string>
#include <vector>

#include "controllers/common/tenancy.h"
#include "operator/k8s/json_builder.h"

namespace rdmastack::controllers {

inline constexpr char kDefaultNodePriorityClass[] = "system-node-critical";

struct NodePodPolicy {
  // Secret names, looked up in the pod's namespace by the kubelet (a name missing there is
  // skipped with a Warning event on the pod, and the pull goes on without it).
  std::vector<std::string> image_pull_secrets;
  std::string priority_class_name = kDefaultNodePriorityClass;  // "" = none
  // Which images and host directories pools and profiles may name (checked by the reconcilers
  // before anything is rendered).
  TenancyPolicy tenancy;
};

// Sets spec.imagePullSecrets (the policy's names, then `extra` ones such as a pool's own, each
// once, in that order; none: the field is left out) and spec.priorityClassName on a pod spec.
void ApplyNodePodPolicy(const NodePodPolicy& policy, const std::vector<std::string>& extra,
                        k8s::JsonBuilder* pod_spec);

}  // namespace rdmastack::controllers
