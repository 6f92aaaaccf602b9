#include "tests/harness/prom_text.h"

#include <cstdlib>
#include <sstream>

namespace rdmastack::testing {
namespace {

// Parses `{a="x",b="y"}` starting at text[pos] == '{'; returns the position after '}'.
size_t ParseLabels(const std::string& line, size_t pos, std::map<std::string, std::string>* out) {
  ++pos;
  while (pos < line.size() && line[pos] != '}') {
    const size_t eq = line.find('=', pos);
    if (eq == std::string::npos || eq + 1 >= line.size() || line[eq + 1] != '"') return line.size();
    std::string key = line.substr(pos, eq - pos);
    std::string value;
    size_t i = eq + 2;
    for (; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) {
        ++i;
        value += line[i] == 'n' ? '\n' : line[i];
      } else {
        value += line[i];
      }
    }
    (*out)[key] = value;
    pos = i + 1;
    if (pos < line.size() && line[pos] == ',') ++pos;
  }
  return pos + 1;
}

}  // namespace

std::vector<PromSample> ParsePromText(const std::string& text) {
  std::vector<PromSample> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    PromSample s;
    size_t pos = line.find_first_of("{ ");
    if (pos == std::string::npos) continue;
    s.name = line.substr(0, pos);
    if (line[pos] == '{') pos = ParseLabels(line, pos, &s.labels);
    if (pos >= line.size()) continue;
    s.value = std::strtod(line.c_str() + pos, nullptr);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<PromSample> Samples(const std::vector<PromSample>& all, const std::string& name,
                                const std::map<std::string, std::string>& labels) {
  std::vector<PromSample> out;
  for (const PromSample& s : all) {
    if (s.name != name) continue;
    bool match = true;
    for (const auto& [k, v] : labels) {
      auto it = s.labels.find(k);
      if (it == s.labels.end() || it->second != v) {
        match = false;
        break;
      }
    }
    if (match) out.push_back(s);
  }
  return out;
}

std::optional<double> SampleValue(const std::vector<PromSample>& all, const std::string& name,
                                  const std::map<std::string, std::string>& labels) {
  const std::vector<PromSample> found = Samples(all, name, labels);
  if (found.size() != 1) return std::nullopt;
  return found[0].value;
}

}  // namespace rdmastack::testing
