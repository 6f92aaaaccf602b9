#pragma once
// A GatewayPool pass in three steps (gatewaypool_reconciler.h runs them):
//   snapshot  what the caches, the compatibility data and this process's memory say now
//             (PoolSnapshot; the reconciler's only reads, besides the S3 check of new gateways);
//   plan      pure functions from the snapshot to every write the pass makes, in order
//             (DecidePool -> PoolInputs, PlanPool -> PoolPlan, PlanAfterPublish, PlanWorkloads,
//             PoolStatusOf);
//   apply     the reconciler writes a plan through its ObjectWriter, in the plan's order.
// So a decision is tested from a snapshot built by hand (tests/pool_plan_test.cc), without a
// client. Adding one: give the snapshot what it needs to read, decide in the plan, and if it
// writes something new, give the plan a field and the applier the write.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "controllers/common/credentials_secret.h"
#include "controllers/common/owned_objects.h"
#include "controllers/gatewaypool/gateway_daemonset.h"
#include "controllers/gatewaypool/pool_conflict.h"
#include "controllers/gatewaypool/pool_status.h"
#include "controllers/gatewaypool/upgrade_plan.h"
#include "lib/compat/compatibility.h"
#include "operator/k8s/json_object.h"
#include "operator/runtime/event_recorder.h"
#include "operator/runtime/store.h"

namespace rdmastack::gatewaypool {

// What the caches hold for one pool.
struct PoolObjects {
  std::vector<runtime::ObjectPtr> daemonsets;  // the gateways'
  runtime::ObjectPtr iam_cleanup;              // only while the pool is being deleted
  std::vector<runtime::ObjectPtr> iam_cleanup_pods;
  std::vector<runtime::ObjectPtr> slices;
  runtime::ObjectPtr service;
  std::vector<controllers::OwnedPod> pods;
  std::vector<runtime::ObjectPtr> pod_objects;  // the same pods, for their deletion
  // Objects with the pool's label that are not its own, by kind: ignored, named in events.
  std::vector<std::pair<const char*, std::vector<runtime::ObjectPtr>>> look_alikes;
};

// What a node carries of the pool: labels (all of them; the pool's are matched by name) and the
// upgrade and maintenance annotations as they are.
struct NodeMarks {
  crd::StringMap labels;
  std::optional<std::string> state;
  std::optional<std::string> maintenance;
};

// One cached node as the pass reads it.
struct PoolNode {
  runtime::ObjectPtr object;
  std::string name;
  std::string resource_version;
  // With this process's last patch laid over where the cache has not caught up with it yet (an
  // informer relisting after an API server restart lags by seconds): from the stale node a
  // second pass would start the same move again.
  NodeMarks marks;
  bool selected = false;  // the pool's nodeSelector picks it
  bool unschedulable = false;
  std::optional<crd::RdmaNodeStatus> report;  // selected nodes only
  // For selected nodes, the annotations parsed (nullopt: none, or one that does not parse: the
  // node starts over) and the unix seconds this process counts their stamps from
  // (first_observed.h).
  std::optional<NodeUpgradeState> upgrade;
  int64_t count_since = 0;
  int64_t count_started = 0;
  std::optional<MaintenanceState> maintenance;
  int64_t maintenance_count_since = 0;
};

struct PoolSnapshot {
  const crd::GatewayPool* pool = nullptr;
  Clock::WallTime now{};
  // Unix seconds since which the API server has answered (drain_clock.h).
  int64_t api_answering_since = 0;
  // The compatibility data, or why it is unusable (then `matrix` is null).
  std::shared_ptr<const compat::CompatibilityMatrix> matrix;
  std::string matrix_error;
  std::optional<PoolConflict> conflict;  // an older pool on a shared node
  // Why the pool's namespace is not served; nullopt when it is.
  std::optional<std::string> unserved;
  controllers::SecretCheck credentials;
  // s3.tlsSecret's keys, checked once the credentials are present.
  std::optional<controllers::SecretCheck> tls;
  PoolObjects owned;
  std::vector<PoolNode> nodes;  // every cached node, in name order
};

// The decision and the planner's inputs (before the S3 check of new gateways fills
// upgrade.nodes[].validation).
struct PoolInputs {
  PoolStatusInputs status;                   // without upgrade and tracks: PoolStatusOf adds them
  std::optional<k8s::JsonObject> daemonset;  // the current track's, when there is one
  bool may_start = false;  // a track, its Secrets, and no conflict: new gateways may start
  // Every track the pool still runs, by name: the spec's and those its DaemonSets record.
  std::map<std::string, Track> tracks;
  UpgradeInputs upgrade;
  std::vector<size_t> planned;  // snapshot.nodes index of each upgrade.nodes entry
  std::vector<size_t> leaving;  // snapshot.nodes the selector left that still carry the pool's
};

// A merge patch of one node. One that moves the upgrade or maintenance state holds only while the
// node is as the pass read it: the applier fences it with the resourceVersion (ObjectWriter).
struct NodePatch {
  std::string node;
  std::string resource_version;  // as read
  k8s::JsonObject body;
  bool moves_state = false;
  // The node's move starts in this step: written after every other node's patch (the budget it
  // spends may be what another node's step frees).
  bool starts = false;
};

struct PlannedEvent {
  runtime::ObjectPtr node;  // related object: each node's transitions are a series of their own
  runtime::EventType type = runtime::EventType::kNormal;
  std::string reason;
  std::string action;
  std::string message;
};

// A stamp this step writes, to be seen as written (first_observed.h): key "<node>/since" etc.
struct WrittenStamp {
  std::string key;
  int64_t stamp = 0;
};

struct NodeWrites {
  std::vector<WrittenStamp> stamps;
  std::vector<PlannedEvent> events;
  std::vector<NodePatch> patches;
};

struct PoolPlan {
  PoolInputs inputs;
  UpgradePlan upgrade;
  // The spec is accepted and names a track: the nodes' plan applies (a refused spec changes
  // nothing on a node, its maintenance record included).
  bool planned_now = false;
  NodeWrites nodes;
  std::vector<runtime::ObjectPtr> pod_deletions;  // InPlace: outdated pods, the pool's own only
  // Nodes moved to Switch wait only for their endpoint: publish it, then PlanAfterPublish.
  bool waits_on_publish = false;
};

struct ObjectWrite {
  k8s::JsonObject desired;
  runtime::ObjectPtr existing;  // null: created
};

struct WorkloadWrites {
  std::optional<ObjectWrite> daemonset;  // the current track's
  std::optional<ObjectWrite> service;
  // Slices that gain ready endpoints are written before the rest, so that a node whose endpoint
  // moves between tracks is never without a ready one in between.
  std::vector<ObjectWrite> gaining;
  std::vector<ObjectWrite> rest;
  std::vector<runtime::ObjectPtr> unwanted_slices;
  // Tracks the spec left, once no node runs them any more: their DaemonSet and its slices.
  std::vector<std::pair<runtime::ObjectPtr, std::vector<runtime::ObjectPtr>>> retired;
};

PoolInputs DecidePool(const PoolSnapshot& snapshot, const GatewayRenderOptions& render);

PoolPlan PlanPool(const PoolSnapshot& snapshot, PoolInputs inputs);

// The chained step: once the slices that gained endpoints were written (`gained`: node -> the
// tracks those writes list it ready on), plan again as the next pass would when they came back
// through the watch. Replaces `plan.upgrade`; returns what changed since the first step.
NodeWrites PlanAfterPublish(const PoolSnapshot& snapshot, PoolPlan& plan,
                            const std::map<std::string, std::set<std::string>>& gained);

// DaemonSet, Service and EndpointSlices for `upgrade` (each track's slices list the nodes the plan
// publishes there). A refused spec leaves them as they are: nothing serving changes.
WorkloadWrites PlanWorkloads(const PoolSnapshot& snapshot, const PoolInputs& inputs,
                             const UpgradePlan& upgrade);

// The status the plan leaves. Spends the plan: its per-node inputs move into the computation
// instead of being copied (a pool of thousands of nodes).
crd::GatewayPoolStatus PoolStatusOf(PoolPlan&& plan);

}  // namespace rdmastack::gatewaypool
