#include "controllers/rdmanode/node_labels.h"

#include "controllers/rdmanode/rdmanode_status.h"
#include "operator/base/rfc3339.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::rdmanode {

DesiredLabels DesiredNodeLabels(const crd::RdmaNodeStatus& status, Clock::WallTime now,
                                Clock::Duration grace) {
  DesiredLabels out;
  if (const crd::Condition* reporting = FindCondition(status, kReporting);
      reporting != nullptr && reporting->status != crd::ConditionStatus::kTrue) {
    auto since = ParseRfc3339(reporting->last_transition_time);
    // An unreadable time cannot start a grace period: the labels go at once.
    if (!since.ok() || now >= *since + grace) return out;
    out.recheck_at = *since + grace;
  }
  const std::pair<const char*, const char*> verdicts[] = {
      {kGatewayCapable, kGatewayCapableLabel},
      {kGPUDirectCapable, kGPUDirectLabel},
      {kHostMemoryCapable, kHostMemLabel},
  };
  for (const auto& [condition, label] : verdicts) {
    const crd::Condition* c = FindCondition(status, condition);
    if (c == nullptr || c->status == crd::ConditionStatus::kUnknown) continue;
    out.labels[label] = c->status == crd::ConditionStatus::kTrue ? "true" : "false";
  }
  if (status.link_layer)
    out.labels[kLinkLayerLabel] = std::string(crd::ToString(*status.link_layer));
  return out;
}

std::string NodeLabelPatch(const std::map<std::string, std::string>& current,
                           const std::map<std::string, std::string>& desired) {
  k8s::JsonObject patch;
  bool changed = false;
  for (std::string_view key : kOwnedNodeLabels) {
    const std::string k(key);
    auto want = desired.find(k);
    auto have = current.find(k);
    const k8s::JsonPath path{"metadata", "labels", key};
    if (want != desired.end()) {
      if (have != current.end() && have->second == want->second) continue;
      (void)patch.SetString(path, want->second);
      changed = true;
    } else if (have != current.end()) {
      (void)patch.SetNull(path);
      changed = true;
    }
  }
  return changed ? patch.Serialize() : "";
}

}  // namespace rdmastack::rdmanode
