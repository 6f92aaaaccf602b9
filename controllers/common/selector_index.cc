#include "controllers/common/selector_index.h"

#include <map>

#include "controllers/common/node_label_keys.h"
#include "controllers/common/node_selection.h"

namespace rdmastack::controllers {
namespace {

constexpr char kEverySelector[] = "*";  // an empty nodeSelector: every node

std::map<std::string, std::string> SelectorOf(const k8s::JsonObject& owner) {
  return owner.GetStringMap({"spec", "nodeSelector"});
}

std::string Pair(std::string_view key, std::string_view value) {
  return std::string(key) + "=" + std::string(value);
}

std::vector<runtime::Request> Requests(const std::map<std::string, runtime::ObjectPtr>& owners) {
  std::vector<runtime::Request> out;
  out.reserve(owners.size());
  for (const auto& [key, owner] : owners)
    out.push_back({std::string(owner->Namespace()), std::string(owner->Name())});
  return out;
}

void AddSelecting(const runtime::Store& owners, const k8s::JsonObject& node,
                  std::map<std::string, runtime::ObjectPtr>& out) {
  for (runtime::ObjectPtr& owner : OwnersSelecting(owners, IndexedSelectorKeys(owners), node))
    out.emplace(owner->Key(), std::move(owner));
}

}  // namespace

NamedIndexes SelectorIndexes(std::function<std::string(const k8s::JsonObject& owner)> mark) {
  NamedIndexes out;
  out.emplace_back(kSelectorPairIndex, [](const k8s::JsonObject& owner) {
    std::vector<std::string> values;
    for (const auto& [key, value] : SelectorOf(owner)) values.push_back(Pair(key, value));
    if (values.empty()) values.push_back(kEverySelector);
    return values;
  });
  out.emplace_back(kSelectorKeyIndex, [](const k8s::JsonObject& owner) {
    return owner.Keys({"spec", "nodeSelector"});
  });
  out.emplace_back(kNodeMarkIndex, [mark = std::move(mark)](const k8s::JsonObject& owner) {
    return std::vector<std::string>{mark(owner)};
  });
  return out;
}

std::set<std::string> IndexedSelectorKeys(const runtime::Store& owners) {
  StatusOr<std::vector<std::string>> keys = owners.IndexValues(kSelectorKeyIndex);
  if (!keys.ok()) return LabelKeysToKeep(owners.List());
  return {std::make_move_iterator(keys->begin()), std::make_move_iterator(keys->end())};
}

std::vector<runtime::ObjectPtr> OwnersSelecting(const runtime::Store& owners,
                                                const std::set<std::string>& keys,
                                                const k8s::JsonObject& node) {
  const std::map<std::string, std::string> labels = node.Labels();
  std::vector<runtime::ObjectPtr> candidates;
  StatusOr<std::vector<runtime::ObjectPtr>> every = owners.ByIndex(kSelectorPairIndex, "*");
  if (!every.ok()) {
    candidates = owners.List();
  } else {
    candidates = std::move(*every);
    for (const std::string& key : keys) {
      auto label = labels.find(key);
      if (label == labels.end()) continue;
      StatusOr<std::vector<runtime::ObjectPtr>> filed =
          owners.ByIndex(kSelectorPairIndex, Pair(key, label->second));
      if (filed.ok()) candidates.insert(candidates.end(), filed->begin(), filed->end());
    }
  }
  // An owner with several pairs is filed under each: keep one of each, and only full matches.
  std::map<std::string, runtime::ObjectPtr> selecting;
  for (runtime::ObjectPtr& owner : candidates) {
    if (SelectorMatches(SelectorOf(*owner), labels))
      selecting.emplace(owner->Key(), std::move(owner));
  }
  std::vector<runtime::ObjectPtr> out;
  out.reserve(selecting.size());
  for (auto& [key, owner] : selecting) out.push_back(std::move(owner));
  return out;
}

runtime::MapFunc EnqueueOwnersOfNode(
    const runtime::Store& owners,
    std::function<std::set<std::string>(const k8s::JsonObject& node)> marks_of) {
  return [&owners, marks_of = std::move(marks_of)](const k8s::JsonObject& node) {
    std::map<std::string, runtime::ObjectPtr> found;
    AddSelecting(owners, node, found);
    for (const std::string& mark : marks_of(node)) {
      StatusOr<std::vector<runtime::ObjectPtr>> marked = owners.ByIndex(kNodeMarkIndex, mark);
      if (!marked.ok()) {  // no index: every owner, as before the index
        for (runtime::ObjectPtr& owner : owners.List())
          found.emplace(owner->Key(), std::move(owner));
        break;
      }
      for (runtime::ObjectPtr& owner : *marked) found.emplace(owner->Key(), std::move(owner));
    }
    return Requests(found);
  };
}

runtime::MapFunc EnqueueOwnersOfRdmaNode(const runtime::Store& owners,
                                         const runtime::Store& nodes) {
  return [&owners, &nodes](const k8s::JsonObject& rdmanode) {
    const runtime::ObjectPtr node = nodes.Get(std::string(rdmanode.Name()));
    // A report of a node the cache does not hold concerns no owner: each reads the reports of
    // the cached nodes it selects.
    if (node == nullptr) return std::vector<runtime::Request>{};
    std::map<std::string, runtime::ObjectPtr> found;
    AddSelecting(owners, *node, found);
    return Requests(found);
  };
}

}  // namespace rdmastack::controllers
