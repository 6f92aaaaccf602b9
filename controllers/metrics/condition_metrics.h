#pragma once
// The three condition families every kind shares (kube-state-metrics' shape): one series per
// type and status (1 for the current status, 0 for the other two, so a series never vanishes
// while the condition exists and `for:` clauses of alerts hold across a reason change), the
// current reason, and the last transition time.

#include <string>
#include <vector>

#include "controllers/metrics/family_set.h"
#include "crds/types/types.h"

namespace rdmastack::statusmetrics {

// Declares `<prefix>_condition`, `<prefix>_condition_reason` and
// `<prefix>_condition_last_transition_timestamp_seconds` in `set`.
void DeclareConditionFamilies(FamilySet& set, const std::string& prefix, const std::string& kind);

// Adds the series of `conditions` under `object` (the object's identifying labels).
void AddConditions(FamilySet& set, const std::string& prefix, const Labels& object,
                   const std::vector<crd::Condition>& conditions);

}  // namespace rdmastack::statusmetrics
