#pragma once
// Node maintenance (pure): a storage node that is being taken out of service - cordoned, as
// `kubectl drain`, the NVIDIA maintenance operator and k8s-operator-libs do, or marked by the
// Network/GPU Operator's driver upgrade - leaves its pool the way an upgrade moves a gateway away:
// its endpoints are listed as terminating for drainSeconds, then removed, and only then does its
// gateway stop (its track labels go, so the DaemonSet deletes the pod). Uncordoned, it comes back
// like a new node. The entry time is kept on the Node as one annotation, so a restarted operator
// keeps the drain's clock. Runbook: docs/operations.md "Node maintenance".

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "base/status.h"
#include "controllers/gatewaypool/drain_clock.h"
#include "crds/types/types.h"

namespace rdmastack::gatewaypool {

// The driver-upgrade state labels of the NVIDIA Network Operator (OFED driver) and GPU Operator
// (k8s-operator-libs), and the states in which the node is being taken down for the driver.
inline constexpr char kNetworkOperatorUpgradeLabel[] = "nvidia.com/ofed-driver-upgrade-state";
inline constexpr char kGpuOperatorUpgradeLabel[] = "nvidia.com/gpu-driver-upgrade-state";

// Why the node is under maintenance, in one line ("cordoned",
// "nvidia.com/ofed-driver-upgrade-state=drain-required"); "" when it is not.
std::string MaintenanceCause(bool unschedulable, const crd::StringMap& labels);

enum class MaintenancePhase {
  kDraining,  // endpoints listed as terminating; the gateways still serve
  kStopped,   // endpoints gone; the gateways stop
};
std::string_view MaintenancePhaseName(MaintenancePhase phase);

// What the annotation keeps.
struct MaintenanceState {
  int64_t since = 0;  // unix seconds: the node entered maintenance
  std::string cause;
  // Tracks whose endpoint listed the node as ready at entry: they drain.
  std::set<std::string> draining;
  friend bool operator==(const MaintenanceState&, const MaintenanceState&) = default;
};

std::string SerializeMaintenanceState(const MaintenanceState& state);
StatusOr<MaintenanceState> ParseMaintenanceState(std::string_view json);

// "maintenance.gwp.rdmastack.io/<namespace>.<pool>" (cut and hashed like the track labels).
std::string NodeMaintenanceAnnotation(std::string_view ns, std::string_view pool);

// One node's maintenance this pass.
struct MaintenanceInput {
  std::string cause;                      // MaintenanceCause; "" when not under maintenance
  std::optional<MaintenanceState> state;  // the annotation, if any
  std::set<std::string> tracks;           // the pool's track labels on the node now
  std::set<std::string> published;        // tracks listing the node as ready now
  // The unix second from which this reader counts `state`'s since: the later of the stamp and
  // when this process first saw it (first_observed.h); 0 = the stamp itself.
  int64_t count_since = 0;
};

struct MaintenanceStep {
  // Under maintenance this pass: the decision below replaces the upgrade planner's.
  bool applies = false;
  MaintenancePhase phase = MaintenancePhase::kDraining;
  std::optional<MaintenanceState> state;  // the annotation wanted (nullopt: none)
  std::set<std::string> tracks;           // the track labels wanted
  // An Event's reason (MaintenanceDrain | MaintenanceStop | MaintenanceOver) and note; "" when
  // nothing changed.
  std::string event_reason;
  std::string transition;
  int64_t wake_at = 0;  // unix seconds the drain ends; 0 = no timer
};

MaintenanceStep StepMaintenance(const MaintenanceInput& in, const DrainClock& drain);

}  // namespace rdmastack::gatewaypool
