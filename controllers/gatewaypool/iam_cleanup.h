#pragma once
// Removing a deleted pool's IAM directory (`/var/lib/rdmastack/gateway-iam/<ns>.<pool>.<uid>`,
// its ClientProfiles' S3 users) from the nodes that ran its gateways. Pure.
//
// After the gateway DaemonSets are deleted, a cleanup DaemonSet runs `rdmastack-client remove-dir`
// on every node that still carries one of the pool's track labels (the nodes its gateways were
// scheduled on). Its pod turns Ready once the directory is gone; that node's labels then go. A
// node whose pod is not Ready by the time limit (down, cordoned off its image) is given up with a
// Warning naming it, so a lost node cannot hold the pool's deletion forever.
//
// The pod runs the operator's own client image, never the pool's: it mounts the root that holds
// every pool's directory, and takes the one name to remove from the operator (a plain name built
// from the namespace, the pool and its UID).

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "controllers/gatewaypool/gateway_daemonset.h"
#include "crds/types/types.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::gatewaypool {

// From the pool's deletion to giving up on a node whose cleanup pod is not Ready.
inline constexpr std::chrono::seconds kIamCleanupTimeout{120};
// At most this many nodes are named in the IamCleanupIncomplete event.
inline constexpr size_t kMaxIamCleanupListed = 10;

std::string IamCleanupDaemonSetName(std::string_view pool);  // "<pool>-iam-cleanup"

struct IamCleanupNode {
  std::string name;
  std::set<std::string> track_labels;  // the pool's track label keys on the node
  bool pod_ready = false;              // its cleanup pod is Ready and not terminating
};

struct IamCleanupPlan {
  std::set<std::string> label_keys;    // the DaemonSet's node affinity: any of these, present
  std::vector<std::string> cleaned;    // the directory is gone: the node's labels go now
  std::vector<std::string> abandoned;  // given up at the time limit: labels go, directory stays
  bool waiting = false;                // some node still waits: the DaemonSet stays
};

IamCleanupPlan PlanIamCleanup(const std::vector<IamCleanupNode>& nodes, bool timed_out);

// The cleanup DaemonSet, its pods on nodes with any of `label_keys` (OnDelete: a node that
// finishes changes the affinity, and must not restart the pods of the others).
// `options.cleanup_image` runs it.
k8s::JsonObject RenderIamCleanupDaemonSet(const crd::GatewayPool& pool,
                                          const std::set<std::string>& label_keys,
                                          const GatewayRenderOptions& options);

}  // namespace rdmastack::gatewaypool
