#pragma once
// The rolling-upgrade planner (pure): from each node's labels, persisted upgrade state, gateway
// pods and the operator's own S3 check, decide every node's next track labels and state.
// Runbook and phase meanings: docs/operations.md "Upgrading a pool".
//
// Invariants the planner keeps (tested in upgrade_plan_test.cc and under real traffic in the
// upgrade e2e test):
// - never more than maxParallel nodes in flight (and, for InPlace, never more than maxUnavailable
//   nodes without a serving gateway); a Failed node holds its slot (and, without a serving
//   gateway, its share of maxUnavailable) until its state is cleared, so autoRollback false
//   tolerates at most maxParallel failures instead of failing the nodes one after another;
// - SideBySide: a node's endpoint moves to the new track only after the new gateway is Ready and
//   answered the operator's signed request, and the old gateway stops only after drainSeconds
//   with its endpoint marked terminating, counted while the API server answered (drain_clock.h);
// - paused: no node starts; nodes already moving finish their move;
// - autoRollback: one failed node halts the rollout and rolls back the nodes in flight;
// - a node under maintenance (node_maintenance.h) is taken out of the rollout: a move in flight
//   on it is dropped (a Failed state stays), it counts as unavailable, and its labels follow
//   the maintenance step.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "controllers/common/owned_pod.h"
#include "controllers/gatewaypool/drain_clock.h"
#include "controllers/gatewaypool/node_maintenance.h"
#include "crds/types/node_upgrade.h"
#include "crds/types/types.h"

namespace rdmastack::gatewaypool {

// The operator's read-only signed request against a node's new gateway.
struct Validation {
  bool ok = false;
  std::string reason;   // when not ok: CamelCase, e.g. CredentialsRejected
  std::string message;  // one line
};

struct UpgradeNode {
  std::string name;
  // May run the target track (selected and verified; or labelled, with a silent agent).
  bool eligible = false;
  std::set<std::string> tracks;  // this pool's track labels on the node
  std::optional<NodeUpgradeState> state;
  std::map<std::string, controllers::OwnedPod> pods;  // by track: the node's live gateway pod
  // Tracks whose EndpointSlice lists the node as ready (not terminating) now.
  std::set<std::string> published;
  std::optional<Validation> validation;  // filled where NeedsValidation said so
  MaintenanceStep maintenance;           // StepMaintenance for this pass
  // The unix seconds from which this reader counts `state`'s since and started: the later of the
  // stamp and when this process first saw it (first_observed.h); 0 = the stamp itself.
  int64_t count_since = 0;
  int64_t count_started = 0;
};

struct UpgradeInputs {
  std::string target;       // the spec's track ("v2")
  std::string target_hash;  // pod template hash of the target track's DaemonSet as rendered now
  crd::UpgradeSpec spec;
  int64_t validation_timeout_s = 600;
  int64_t now = 0;  // unix seconds
  // Unix seconds since which the API server has answered the operator without a break: a drain
  // counts only from then (drain_clock.h).
  int64_t api_answering_since = 0;
  // The spec is accepted and its Secret exists. When false nothing changes on any node.
  bool may_start = false;
  // SideBySide needs the target's ports free on the node: a track still running holds them.
  std::string port_conflict;       // "" or what collides, for the condition message
  std::vector<UpgradeNode> nodes;  // sorted by name
};

struct NodeDecision {
  std::string node;
  std::set<std::string> tracks;           // labels wanted
  std::optional<NodeUpgradeState> state;  // annotation wanted (nullopt: none)
  std::string delete_pod;                 // InPlace: the outdated pod to delete now
  // A phase change worth an Event: "Validate -> Switch"; "" when none.
  std::string transition;
  bool warning = false;  // RollBack / Failed
  // The node's maintenance: its annotation wanted, and when it applies, its labels and role.
  MaintenanceStep maintenance;
};

struct UpgradePlan {
  std::vector<NodeDecision> nodes;  // one per input node, same order
  // An upgrade is under way: a node is not on the target yet (pending, moving or failed).
  bool active = false;
  bool in_place = false;       // the strategy in use
  std::set<std::string> from;  // tracks being left
  crd::UpgradePhaseCounts phases;
  int32_t moving_total = 0;  // nodes this rollout moves (pending + moving + done + failed)
  bool paused = false;
  bool halted = false;  // autoRollback stopped the rollout after a failure
  std::string blocked;  // why nothing can start (port conflict), "" if not
  // Pending nodes that cannot start because failed nodes hold every maxParallel slot (or the
  // maxUnavailable budget) and nothing else is moving; 0 otherwise.
  int64_t held_by_failed = 0;
  std::vector<crd::NodeProblem> failed;  // failed nodes with reason and message
  int64_t started = 0;       // unix seconds: the earliest start of a node's move in this rollout
  int64_t wake_after_s = 0;  // a timer (drain end, validation deadline, re-check); 0 = none
};

// Nodes whose target gateway is up and waits for the operator's S3 check.
bool NeedsValidation(const UpgradeNode& node, const UpgradeInputs& in);

UpgradePlan PlanUpgrade(const UpgradeInputs& in);

// Chaining steps within one pass. A SideBySide node in Switch waits only for its new endpoint to
// be published; the pass that decided Switch writes that endpoint itself. Once that write has
// succeeded, waiting for it to come back through the watch costs a whole pass per node.
//
// Whether some node of `plan` waits in Switch for a track `in` does not show it published on.
bool WaitsOnPublish(const UpgradeInputs& in, const UpgradePlan& plan);
// The inputs of the same pass once `plan` is written: each node's track labels and state are the
// plan's, and `now_published` (node -> tracks whose EndpointSlice this pass wrote listing the node
// ready, the write acknowledged) joins what the caches showed. PlanUpgrade on them decides what the
// next pass would once those writes came back; what stays unknown (pods, the S3 check, the
// maintenance step) is as the caches had it, so only the steps that waited on our writes move.
UpgradeInputs AfterWrites(const UpgradeInputs& in, const UpgradePlan& plan,
                          const std::map<std::string, std::set<std::string>>& now_published);

// How the node appears in `track`'s EndpointSlice once `decision` is written.
EndpointRole NodeRole(const NodeDecision& decision, const std::string& track,
                      const std::string& target);

}  // namespace rdmastack::gatewaypool
