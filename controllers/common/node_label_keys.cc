#include "controllers/common/node_label_keys.h"

namespace rdmastack::controllers {

bool IsOperatorNodeLabel(std::string_view key) {
  return key.starts_with("rdmastack.io/") || key.starts_with("gwp.rdmastack.io/");
}

std::set<std::string> SelectorKeys(const crd::StringMap& selector) {
  std::set<std::string> out;
  for (const auto& [key, value] : selector) out.insert(key);
  return out;
}

std::set<std::string> SelectorKeysOf(const k8s::JsonObject& owner) {
  std::vector<std::string> keys = owner.Keys({"spec", "nodeSelector"});
  return {std::make_move_iterator(keys.begin()), std::make_move_iterator(keys.end())};
}

std::set<std::string> LabelKeysToKeep(const std::vector<runtime::ObjectPtr>& owners) {
  std::set<std::string> out;
  for (const runtime::ObjectPtr& o : owners) {
    if (o != nullptr) out.merge(SelectorKeysOf(*o));
  }
  return out;
}

bool KeysCovered(const std::set<std::string>& kept, const std::set<std::string>& keys) {
  for (const std::string& k : keys) {
    if (!IsOperatorNodeLabel(k) && !kept.count(k)) return false;
  }
  return true;
}

k8s::JsonObject KeepLabels(k8s::JsonObject node, const std::set<std::string>& keep) {
  const std::map<std::string, std::string> labels = node.Labels();
  bool all = true;
  for (const auto& [key, value] : labels) {
    if (!IsOperatorNodeLabel(key) && !keep.count(key)) {
      all = false;
      break;
    }
  }
  if (all) return node;
  node.Remove({"metadata", "labels"});
  for (const auto& [key, value] : labels) {
    if (IsOperatorNodeLabel(key) || keep.count(key)) node.SetLabel(key, value);
  }
  return node;
}

}  // namespace rdmastack::controllers
