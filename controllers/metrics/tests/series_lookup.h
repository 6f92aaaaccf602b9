#pragma once
// Test lookups into sampled families: a series by family name and label subset.

#include <optional>
#include <string>
#include <vector>

#include "controllers/metrics/family_set.h"

namespace rdmastack::statusmetrics::testing {

// The value of the one series of `family` whose labels include all of `want`; nullopt when there
// is none. Fails the test (ADD_FAILURE) when more than one matches.
std::optional<double> Value(const std::vector<runtime::SampledFamily>& families,
                            const std::string& family, const Labels& want);
// How many series `family` has.
size_t Count(const std::vector<runtime::SampledFamily>& families, const std::string& family);

}  // namespace rdmastack::statusmetrics::testing
