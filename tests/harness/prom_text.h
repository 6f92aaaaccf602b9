#pragma once
// Reads samples out of a Prometheus text-format scrape, for tests that check what a real
// operator serves.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdmastack::testing {

struct PromSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Every sample line (comments and blank lines skipped). Escaped label values are unescaped.
std::vector<PromSample> ParsePromText(const std::string& text);

// The samples of `name` whose labels include every one of `labels`.
std::vector<PromSample> Samples(const std::vector<PromSample>& all, const std::string& name,
                                const std::map<std::string, std::string>& labels = {});

// The value of the only such sample; nullopt when there is none or more than one.
std::optional<double> SampleValue(const std::vector<PromSample>& all, const std::string& name,
                                  const std::map<std::string, std::string>& labels = {});

}  // namespace rdmastack::testing
