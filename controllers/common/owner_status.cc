#include "controllers/common/owner_status.h"

#include <spdlog/spdlog.h>

#include "controllers/common/conditions.h"

namespace rdmastack::controllers {

void RecordConditionEvents(runtime::EventRecorder& events, const k8s::JsonObject& object,
                           const std::vector<crd::Condition>& before,
                           const std::vector<crd::Condition>& after,
                           const std::vector<ConditionEvent>& rules) {
  for (const ConditionEvent& rule : rules) {
    const crd::Condition* c = ChangedCondition(before, after, rule.type);
    if (c == nullptr || c->status != rule.status) continue;
    if (!rule.except_reason.empty() && c->reason == rule.except_reason) continue;
    events.Record(object, rule.event, c->reason, std::string(rule.action), c->message);
  }
}

void LogStatusWritten(std::string_view log_name, const std::string& key,
                      const std::vector<crd::Condition>& conditions, const std::string& summary) {
  const crd::Condition* ready = FindCondition(conditions, "Ready");
  spdlog::info("{} {}: status written (Ready={} {}, {})", log_name, key,
               ready ? crd::ToString(ready->status) : "", ready ? ready->reason : "", summary);
}

}  // namespace rdmastack::controllers
