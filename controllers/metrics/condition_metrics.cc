#include "controllers/metrics/condition_metrics.h"

#include <chrono>

#include "base/rfc3339.h"

namespace rdmastack::statusmetrics {

void DeclareConditionFamilies(FamilySet& set, const std::string& prefix, const std::string& kind) {
  set.Declare(prefix + "_condition", "Status of each " + kind +
                                         " condition: 1 for the current status (True, False or "
                                         "Unknown), 0 for the other two.");
  set.Declare(prefix + "_condition_reason",
              "The current reason of each " + kind + " condition (value 1).");
  set.Declare(prefix + "_condition_last_transition_timestamp_seconds",
              "When each " + kind + " condition last changed status, in Unix seconds.");
}

void AddConditions(FamilySet& set, const std::string& prefix, const Labels& object,
                   const std::vector<crd::Condition>& conditions) {
  for (const crd::Condition& c : conditions) {
    for (crd::ConditionStatus s : {crd::ConditionStatus::kTrue, crd::ConditionStatus::kFalse,
                                   crd::ConditionStatus::kUnknown}) {
      set.Add(prefix + "_condition",
              With(object, {{"type", c.type}, {"status", std::string(crd::ToString(s))}}),
              c.status == s ? 1 : 0);
    }
    if (!c.reason.empty()) {
      set.Add(prefix + "_condition_reason", With(object, {{"type", c.type}, {"reason", c.reason}}),
              1);
    }
    if (auto at = ParseRfc3339(c.last_transition_time); at.ok()) {
      set.Add(prefix + "_condition_last_transition_timestamp_seconds",
              With(object, {{"type", c.type}}),
              std::chrono::duration<double>(at->time_since_epoch()).count());
    }
  }
}

}  // namespace rdmastack::statusmetrics
