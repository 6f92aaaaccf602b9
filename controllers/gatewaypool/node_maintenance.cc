#include "controllers/gatewaypool/node_maintenance.h"

#include <array>

#include "controllers/gatewaypool/track.h"
#include "operator/k8s/json_builder.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::gatewaypool {
namespace {

// k8s-operator-libs' states between "the node is due" and "the driver is back and validated":
// the node is cordoned, drained or has its driver pod restarted in each. (upgrade-required waits
// for a slot and may wait long; uncordon-required means the driver is back.)
constexpr std::array<std::string_view, 6> kDriverMaintenanceStates{
    "cordon-required", "wait-for-jobs-required", "pod-deletion-required",
    "drain-required",  "pod-restart-required",   "validation-required",
};

}  // namespace

std::string MaintenanceCause(bool unschedulable, const crd::StringMap& labels) {
  if (unschedulable) return "cordoned";
  for (const char* key : {kNetworkOperatorUpgradeLabel, kGpuOperatorUpgradeLabel}) {
    auto it = labels.find(key);
    if (it == labels.end()) continue;
    for (std::string_view state : kDriverMaintenanceStates) {
      if (it->second == state) return std::string(key) + "=" + it->second;
    }
  }
  return "";
}

std::string_view MaintenancePhaseName(MaintenancePhase phase) {
  return phase == MaintenancePhase::kDraining ? "Draining" : "Stopped";
}

std::string SerializeMaintenanceState(const MaintenanceState& s) {
  k8s::JsonBuilder o;
  o.SetInt({"since"}, s.since);
  o.SetString({"cause"}, s.cause);
  std::string draining;
  for (const auto& t : s.draining) draining += (draining.empty() ? "" : ",") + t;
  o.SetString({"draining"}, draining);
  return o.object().Serialize();
}

StatusOr<MaintenanceState> ParseMaintenanceState(std::string_view json) {
  auto o = k8s::JsonObject::Parse(json);
  if (!o.ok() || !o->IsObject() || !o->GetInt({"since"}))
    return InvalidArgumentError("maintenance state is not a JSON object with since: " +
                                std::string(json));
  MaintenanceState s;
  s.since = *o->GetInt({"since"});
  s.cause = o->GetString({"cause"}).value_or("");
  const std::string draining = o->GetString({"draining"}).value_or("");
  for (size_t start = 0; start < draining.size();) {
    size_t comma = draining.find(',', start);
    if (comma == std::string::npos) comma = draining.size();
    if (comma > start) s.draining.insert(draining.substr(start, comma - start));
    start = comma + 1;
  }
  return s;
}

std::string NodeMaintenanceAnnotation(std::string_view ns, std::string_view pool) {
  return NodePoolAnnotation("maintenance.", ns, pool);
}

MaintenanceStep StepMaintenance(const MaintenanceInput& in, const DrainClock& drain) {
  MaintenanceStep step;
  step.tracks = in.tracks;
  if (in.cause.empty()) {
    // Back in service: the planner takes the node again, as a new node once its gateway stopped.
    if (in.state) {
      step.event_reason = "MaintenanceOver";
      step.transition = "maintenance over (was " + in.state->cause + ")";
    }
    return step;
  }
  step.applies = true;
  MaintenanceState s;
  if (in.state) {
    s = *in.state;
    s.cause = in.cause;
  } else {
    s.since = drain.now;
    s.cause = in.cause;
    s.draining = in.published;
  }
  const int64_t count_since = in.state ? std::max(s.since, in.count_since) : s.since;
  const bool draining = !s.draining.empty() && !drain.Over(count_since);
  step.phase = draining ? MaintenancePhase::kDraining : MaintenancePhase::kStopped;
  if (draining) {
    step.wake_at = drain.EndOf(count_since);
  } else {
    step.tracks.clear();
  }
  if (!in.state) {
    step.event_reason = draining ? "MaintenanceDrain" : "MaintenanceStop";
    step.transition = "under maintenance (" + s.cause + "): " +
                      (draining ? "its endpoint drains for " + std::to_string(drain.seconds) +
                                      "s, then its gateway stops"
                                : std::string("its gateway stops"));
  } else if (!draining && !in.tracks.empty()) {
    step.event_reason = "MaintenanceStop";
    step.transition = "drained (" + s.cause + "): its gateway stops";
  }
  step.state = std::move(s);
  return step;
}

}  // namespace rdmastack::gatewaypool
