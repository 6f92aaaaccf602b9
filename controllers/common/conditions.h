#pragma once
// metav1.Condition bookkeeping shared by the status functions: lastTransitionTime moves only when
// a condition's status changes, so that recomputing an unchanged status yields equal values
// (and the reconciler writes nothing).

#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "crds/types/types.h"

namespace rdmastack::controllers {

const crd::Condition* FindCondition(const std::vector<crd::Condition>& conditions,
                                    std::string_view type);
// A pointer into a temporary would dangle (a status returned by value): take it by name first.
const crd::Condition* FindCondition(std::vector<crd::Condition>&& conditions,
                                    std::string_view type) = delete;

// The condition `type` of `now` when its status or reason differs from `before` (or it is new);
// null otherwise. What an event is recorded for.
const crd::Condition* ChangedCondition(const std::vector<crd::Condition>& before,
                                       const std::vector<crd::Condition>& now,
                                       std::string_view type);

class ConditionSetter {
 public:
  // `previous`: the conditions currently in status (may be null).
  ConditionSetter(const std::vector<crd::Condition>* previous, Clock::WallTime now,
                  int64_t generation);

  crd::Condition Make(const std::string& type, crd::ConditionStatus status, std::string reason,
                      std::string message) const;

 private:
  const std::vector<crd::Condition>* previous_;
  const std::string now_;
  const int64_t generation_;
};

}  // namespace rdmastack::controllers
