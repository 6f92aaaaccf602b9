#include "controllers/common/node_selection.h"

#include <algorithm>

namespace rdmastack::controllers {

bool SelectorMatches(const crd::StringMap& selector,
                     const std::map<std::string, std::string>& labels) {
  return std::all_of(selector.begin(), selector.end(), [&](const auto& kv) {
    auto it = labels.find(kv.first);
    return it != labels.end() && it->second == kv.second;
  });
}

bool SelectorMatchesLabelsOf(const crd::StringMap& selector, const k8s::JsonObject& object) {
  return std::all_of(selector.begin(), selector.end(),
                     [&](const auto& kv) { return object.Label(kv.first) == kv.second; });
}

}  // namespace rdmastack::controllers
