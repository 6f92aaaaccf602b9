#include "controllers/common/conditions.h"

#include "base/rfc3339.h"

namespace rdmastack::controllers {

const crd::Condition* FindCondition(const std::vector<crd::Condition>& conditions,
                                    std::string_view type) {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

const crd::Condition* ChangedCondition(const std::vector<crd::Condition>& before,
                                       const std::vector<crd::Condition>& now,
                                       std::string_view type) {
  const crd::Condition* current = FindCondition(now, type);
  const crd::Condition* was = FindCondition(before, type);
  if (current == nullptr) return nullptr;
  if (was != nullptr && was->status == current->status && was->reason == current->reason)
    return nullptr;
  return current;
}

ConditionSetter::ConditionSetter(const std::vector<crd::Condition>* previous, Clock::WallTime now,
                                 int64_t generation)
    : previous_(previous), now_(FormatRfc3339(now)), generation_(generation) {}

crd::Condition ConditionSetter::Make(const std::string& type, crd::ConditionStatus status,
                                     std::string reason, std::string message) const {
  crd::Condition c;
  c.type = type;
  c.status = status;
  c.observed_generation = generation_;
  c.reason = std::move(reason);
  c.message = std::move(message);
  const crd::Condition* old = previous_ != nullptr ? FindCondition(*previous_, type) : nullptr;
  c.last_transition_time =
      old != nullptr && old->status == status ? old->last_transition_time : now_;
  return c;
}

}  // namespace rdmastack::controllers
