#pragma once
// The thin shell around the pure functions, on the skeleton of controllers/common
// (reconcile_skeleton.h): reads the informer caches, decides the track (compatibility), verifies
// the selected nodes, and writes only what differs: the finalizer, the nodes' track labels, the
// track DaemonSets, the Service and EndpointSlices, the status, and a Warning event when a
// condition turns bad. Deleting a pool removes what it created (never the backend directories).

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "controllers/common/namespaced_cache.h"
#include "controllers/common/node_label_filter.h"
#include "controllers/common/reconcile_skeleton.h"
#include "controllers/gatewaypool/compatibility_source.h"
#include "controllers/gatewaypool/first_observed.h"
#include "controllers/gatewaypool/gateway_daemonset.h"
#include "controllers/gatewaypool/gateway_validator.h"
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
  struct Owned;  // what the caches hold for one pool
  Owned Collect(const crd::GatewayPool& pool) const;
  StatusOr<runtime::Result> Pass(const k8s::JsonObject& object,
                                 const crd::GatewayPool& pool) override;
  StatusOr<runtime::Result> Cleanup(const k8s::JsonObject& object,
                                    const crd::GatewayPool& pool) override;
  // The older pool this one collides with on some node (pool_conflict.h), from the caches.
  std::optional<PoolConflict> FindConflict(const crd::GatewayPool& pool,
                                           const compat::CompatibilityMatrix* matrix) const;
  // Node label patches, kLabelWriters at a time.
  static constexpr size_t kLabelWriters = 16;
  // `daemonset`: the current track's, rendered once per reconcile (set whenever the track is).
  // With `gained`, writes only the EndpointSlices that gain ready endpoints and adds to it, per
  // node, the tracks those acknowledged writes list it ready on (the chained step, Pass).
  Status SyncWorkloads(const crd::GatewayPool& pool, const TrackDecision& decision,
                       const std::optional<k8s::JsonObject>& daemonset, bool may_start,
                       const Owned& owned, const std::map<std::string, Track>& tracks,
                       const UpgradePlan& plan,
                       std::map<std::string, std::set<std::string>>* gained = nullptr);
  // Fills the validation of every node waiting for the operator's S3 check.
  void ValidateNewGateways(const crd::GatewayPool& pool, int32_t s3_port, UpgradeInputs& up);

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
