#pragma once
// One ClientProfile pass as a decision without I/O: from what the caches held (ProfileSnapshot) to
// what to write (ProfilePlan): the spec's verdict, each matched node's eligibility and next label,
// the nodes retiring with the profile's files on them, whether the uninstaller runs, and the
// client DaemonSet. ClientProfileReconciler reads the snapshot, applies the plan in its fixed
// order (S3 user, endpoints ConfigMap, DaemonSet, uninstaller, labels) and publishes the status
// with what only I/O tells (the S3 user's state).

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "controllers/clientprofile/client_workload.h"
#include "controllers/clientprofile/profile_status.h"
#include "controllers/common/owned_pod.h"
#include "crds/types/types.h"
#include "operator/k8s/json_object.h"
#include "operator/runtime/store.h"

namespace rdmastack::clientprofile {

// The profile's pods on one node: its client, its uninstall pod, the workloads naming it.
struct NodePods {
  std::optional<controllers::OwnedPod> client, uninstall;
  std::vector<std::string> holders;  // sorted
};

// A node as the pass found it. Unselected nodes matter only while they carry the label.
struct ProfileNode {
  runtime::ObjectPtr object;
  bool selected = false;
  std::optional<crd::RdmaNodeStatus> report;  // selected nodes: the agent's report, if any
};

struct ProfileSnapshot {
  const crd::ClientProfile* profile = nullptr;
  Clock::WallTime now{};
  std::optional<crd::GatewayPool> pool;
  std::vector<PoolEndpoint> endpoints;  // the pool's ready endpoints
  // Why the operator does not serve the profile's namespace (controllers::CheckNamespace).
  std::optional<std::string> unserved;
  // credentialsSecret's problem ("" when fine or none is named), read in a served namespace.
  std::string secret_message;
  std::vector<ProfileNode> nodes;        // in name order
  std::map<std::string, NodePods> pods;  // by node
};

// One node's label step: the merge patch, against the node as it was read.
struct LabelPatch {
  std::string node, body, resource_version;
};

// What one pass decides for the profile's label across the nodes.
struct LabelPlan {
  std::vector<LabelPatch> patches;
  std::vector<crd::RetiringNode> retiring;  // nodes out of the profile, files kept, sorted
  bool uninstaller_needed = false;          // some node's next label is retiring/uninstall
};

struct ProfilePlan {
  // Everything the status needs but the S3 user's state, which the applier adds.
  ProfileStatusInputs status;
  // The client DaemonSet, when the spec is accepted; with no pool, nothing is written.
  std::optional<k8s::JsonObject> daemonset;
  LabelPlan labels;
};

// The profile's pods on `node`; none when it has none.
const NodePods& PodsOn(const std::map<std::string, NodePods>& pods, const std::string& node);

// Whether the tenancy rules, the credentials and the renderer accept the spec, each matched
// node's verdict and next label. `options` is the reconciler's render and tenancy configuration.
ProfilePlan PlanProfile(const ProfileSnapshot& snapshot, const ClientRenderOptions& options);

// Decides `node`'s next value of `label` (node_retirement.h) from its `current` one and the
// profile's pods there (`on`), and adds it to `plan`: a patch when it changes, a retiring node.
void PlanNodeLabel(const runtime::ObjectPtr& node, const std::string& label,
                   const std::optional<std::string>& current, bool wanted, bool client_ready,
                   const NodePods& on, LabelPlan* plan);

}  // namespace rdmastack::clientprofile
