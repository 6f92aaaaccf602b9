#include "controllers/metrics/node_metrics.h"

#include <string>

#include "controllers/metrics/condition_metrics.h"
#include "controllers/metrics/family_set.h"

namespace rdmastack::statusmetrics {
namespace {

constexpr char kNodePrefix[] = "rdmastack_node";
constexpr char kVerdict[] = "rdmastack_node_verdict";

}  // namespace

std::vector<runtime::SampledFamily> NodeMetrics(const std::vector<crd::RdmaNode>& nodes) {
  FamilySet set;
  DeclareConditionFamilies(set, kNodePrefix, "RdmaNode");
  set.Declare(kVerdict,
              "The node agent's verdict per role (gateway, gpuDirect, hostMemory): capable Yes, "
              "No or Unknown, with the reason of a No (value 1).");
  for (const crd::RdmaNode& node : nodes) {
    if (!node.status) continue;
    const Labels labels = {
        {"node", node.spec.node_name.empty() ? node.metadata.name : node.spec.node_name}};
    AddConditions(set, kNodePrefix, labels, node.status->conditions);
    if (!node.status->verdicts) continue;
    const crd::Verdicts& v = *node.status->verdicts;
    for (const auto& [role, verdict] :
         {std::pair<const char*, const std::optional<crd::Verdict>*>{"gateway", &v.gateway},
          {"gpuDirect", &v.gpu_direct},
          {"hostMemory", &v.host_memory}}) {
      if (!*verdict) continue;
      set.Add(kVerdict,
              With(labels, {{"role", role},
                            {"capable", std::string(crd::ToString((*verdict)->capable))},
                            {"reason", (*verdict)->reason.value_or("")}}),
              1);
    }
  }
  return std::move(set).Take();
}

}  // namespace rdmastack::statusmetrics
