#include "controllers/metrics/tests/series_lookup.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace rdmastack::statusmetrics::testing {

std::optional<double> Value(const std::vector<runtime::SampledFamily>& families,
                            const std::string& family, const Labels& want) {
  std::optional<double> found;
  for (const auto& f : families) {
    if (f.name != family) continue;
    for (const auto& s : f.series) {
      const bool matches = std::all_of(want.begin(), want.end(), [&](const auto& label) {
        return std::find(s.labels.begin(), s.labels.end(), label) != s.labels.end();
      });
      if (!matches) continue;
      if (found) ADD_FAILURE() << "more than one series of " << family << " matches";
      found = s.value;
    }
  }
  return found;
}

size_t Count(const std::vector<runtime::SampledFamily>& families, const std::string& family) {
  for (const auto& f : families) {
    if (f.name == family) return f.series.size();
  }
  return 0;
}

}  // namespace rdmastack::statusmetrics::testing
