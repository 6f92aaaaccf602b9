#pragma once
// The thin shell around the pure plan (pool_plan.h), on the skeleton of controllers/common
// (reconcile_skeleton.h): a pass takes a snapshot of the informer caches, plans from it (the
// track, the selected nodes' checks, the rollout) and applies the plan, writing only what differs:
// the finalizer, the nodes' track labels, the track DaemonSets, the Service and EndpointSlices, the
// status, and a Warning event when a condition turns bad. Deleting a pool removes what it created
// (never the backend directories).

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "controllers/common/namespaced_cache.h"
#include "controllers/common/node_label_filter.h"
#include "controllers/common/node_walk.h"
#include "controllers/common/reconcile_skeleton.h"
#include "controllers/gatewaypool/compatibility_source.h"
#include "controllers/gatewaypool/first_observed.h"
#include "controllers/gatewaypool/gateway_daemonset.h"
#include "controllers/gatewaypool/gateway_validator.h"
#include "controllers/gatewaypool/iam_cleanup.h"
#include "controllers/gatewaypool/pool_plan.h"
#include "controllers/gatewaypool/pool_status.h"
#include "controllers/gatewaypool/upgrade_plan.h"
#include "operator/k8s/client.h"
#include "operator/runtime/api_reachability.h"
#include "operator/runtime/event_recorder.h"
#include "operator/runtime/reconciler.h"
#include "operator/runtime/store.h"

namespace rdmastack::gatewaypool {

struct GatewayPoolStores {
  const runtime::Store& pools;
  const runtime::Store& nodes;  // labels only
  const runtime::Store& rdmanodes;
  controllers::NamespacedCache secrets;     // keys of data only, never values
  controllers::NamespacedCache daemonsets;  // the pools' gateway DaemonSets
  controllers::NamespacedCache pods;        // the pools' gateway pods
  controllers::NamespacedCache services;
  controllers::NamespacedCache slices;
  // Whether `nodes` holds the label keys a selector names (node_label_filter.h).
  controllers::NodeLabelCoverage& node_labels;
};

class GatewayPoolReconciler final
    : public controllers::OwnerReconciler<crd::GatewayPool, crd::GatewayPoolStatus> {
 public:
  // `api`: since when the API server has answered; upgrade and maintenance drains count from
  // then (drain_clock.h).
  GatewayPoolReconciler(k8s::Client& client, runtime::EventRecorder& events, Clock& clock,
                        const runtime::ApiReachability& api, GatewayPoolStores stores,
                        const CompatibilitySource& compatibility, GatewayRenderOptions render,
                        GatewayValidator& validator);

 private:
  PoolObjects Collect(const crd::GatewayPool& pool) const;
  // Whether the Node cache holds the label keys the pools' selectors name: nothing is decided
  // until it does.
  bool NodeCacheCovers(const crd::GatewayPool& pool) const;
  // Snapshot, plan, apply (pool_plan.h), then the status.
  StatusOr<runtime::Result> Pass(const k8s::JsonObject& object,
                                 const crd::GatewayPool& pool) override;
  PoolSnapshot Snapshot(const k8s::JsonObject& object, const crd::GatewayPool& pool);
  // The node's annotations of this pool: upgrade state and maintenance.
  struct PoolAnnotationKeys {
    std::string upgrade;
    std::string maintenance;
  };
  PoolNode ReadNode(const std::string& key, const PoolAnnotationKeys& keys,
                    controllers::NodeView& view, int64_t now);
  // Parses a selected node's annotations and counts their stamps from when this process first
  // saw them (first_observed.h).
  void ReadStamps(const std::string& key, int64_t now, PoolNode& node);
  // The older pool this one collides with on some node (pool_conflict.h), from the caches.
  std::optional<PoolConflict> FindConflict(const crd::GatewayPool& pool,
                                           const compat::CompatibilityMatrix* matrix) const;
  // Fills the validation of every node waiting for the operator's S3 check.
  // Each rail of `track` that serves on a node (its verdict in `selected`) is validated on its
  // own S3 port; the first that fails is the node's validation.
  void ValidateNewGateways(const crd::GatewayPool& pool, const Track& track,
                           const std::vector<SelectedNode>& selected, UpgradeInputs& up);
  Status ApplyNodeWrites(const k8s::JsonObject& object, const NodeWrites& writes, int64_t now);
  Status PublishThenReplan(const k8s::JsonObject& object, const PoolSnapshot& snapshot,
                           PoolPlan& plan);
  // With `gained`, writes only the EndpointSlices that gain ready endpoints and adds to it, per
  // node, the tracks those acknowledged writes list it ready on (PublishThenReplan).
  Status ApplyWorkloads(const crd::GatewayPool& pool, const WorkloadWrites& writes,
                        std::map<std::string, std::set<std::string>>* gained);
  // Writes the status unless a rollout holds it back (StatusHoldBack), and asks to be woken when
  // the plan's next step is due (`wake_after_s`).
  StatusOr<runtime::Result> PublishStatus(const k8s::JsonObject& object,
                                          const crd::GatewayPool& pool,
                                          const crd::GatewayPoolStatus& status,
                                          int64_t wake_after_s, const Status& synced);

  StatusOr<runtime::Result> Cleanup(const k8s::JsonObject& object,
                                    const crd::GatewayPool& pool) override;
  IamCleanupPlan PlanPoolIamCleanup(const crd::GatewayPool& pool, const PoolObjects& owned) const;
  Status ApplyIamCleanup(const k8s::JsonObject& object, const crd::GatewayPool& pool,
                         const PoolObjects& owned, const IamCleanupPlan& plan);
  StatusOr<size_t> ReleaseNodes(const crd::GatewayPool& pool, const IamCleanupPlan& plan);

  // Node label patches, kLabelWriters at a time.
  static constexpr size_t kLabelWriters = 16;

  // A rollout's status is written at most this often (StatusHoldBack, pool_status.h).
  static constexpr Clock::Duration kUpgradeStatusInterval = std::chrono::seconds(2);

  k8s::Client& client_;
  runtime::EventRecorder& events_;
  Clock& clock_;
  FirstObserved observed_{clock_};  // node timers count on this process's monotonic clock
  const runtime::ApiReachability& api_;
  GatewayPoolStores stores_;
  const CompatibilitySource& compatibility_;
  const GatewayRenderOptions render_;
  GatewayValidator& validator_;
  std::mutex status_mu_;  // workers reconcile different pools at once
  std::map<std::string, Clock::TimePoint> status_written_;  // pool key -> last status write
};

}  // namespace rdmastack::gatewaypool
