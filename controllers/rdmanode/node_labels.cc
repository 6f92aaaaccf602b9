#include "controllers/rdmanode/node_labels.h"

#include <algorithm>

#include "base/rfc3339.h"
#include "controllers/common/render.h"
#include "controllers/rdmanode/rdmanode_status.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::rdmanode {

FactsTrust TrustFacts(const crd::RdmaNodeStatus& status, Clock::WallTime now,
                      Clock::Duration grace) {
  FactsTrust out;
  const crd::Condition* reporting = FindCondition(status, kReporting);
  if (reporting == nullptr || reporting->status == crd::ConditionStatus::kTrue) return out;
  auto since = ParseRfc3339(reporting->last_transition_time);
  // An unreadable time cannot start a grace period: the facts go at once.
  if (!since.ok() || now >= *since + grace) {
    out.trusted = false;
    return out;
  }
  out.recheck_at = *since + grace;
  return out;
}

DesiredLabels DesiredNodeLabels(const crd::RdmaNodeStatus& status, Clock::WallTime now,
                                Clock::Duration grace) {
  DesiredLabels out;
  const FactsTrust trust = TrustFacts(status, now, grace);
  if (!trust.trusted) return out;
  out.recheck_at = trust.recheck_at;
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
  return controllers::LabelPatch(current, desired, [](std::string_view key) {
    return std::find(std::begin(kOwnedNodeLabels), std::end(kOwnedNodeLabels), key) !=
           std::end(kOwnedNodeLabels);
  });
}

}  // namespace rdmastack::rdmanode
