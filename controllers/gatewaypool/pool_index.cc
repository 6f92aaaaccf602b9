#include "controllers/gatewaypool/pool_index.h"

#include <map>

#include "controllers/common/node_label_keys.h"
#include "controllers/common/node_selection.h"
#include "crds/types/gatewaypool_api.h"

namespace rdmastack::gatewaypool {
namespace {

constexpr char kEverySelector[] = "*";  // an empty nodeSelector: every node
constexpr std::string_view kAnnotationPrefixes[] = {"upgrade.", "maintenance."};

crd::StringMap SelectorOf(const k8s::JsonObject& pool) {
  return pool.GetStringMap({"spec", "nodeSelector"});
}

std::string Pair(std::string_view key, std::string_view value) {
  return std::string(key) + "=" + std::string(value);
}

// The pool name part of a track label ("gwp.rdmastack.io/<part>.<track>") or of a per-pool
// annotation ("upgrade.gwp.rdmastack.io/<part>"); "" for any other key.
std::string_view TrackLabelMark(std::string_view key) {
  if (!key.starts_with(kNodeTrackLabelPrefix)) return {};
  const size_t dot = key.rfind('.');
  return dot == std::string_view::npos || dot < sizeof(kNodeTrackLabelPrefix) - 1
             ? std::string_view()
             : key.substr(0, dot);
}
std::string_view AnnotationMark(std::string_view key) {
  for (std::string_view prefix : kAnnotationPrefixes) {
    if (key.starts_with(prefix) && key.substr(prefix.size()).starts_with(kNodeTrackLabelPrefix))
      return key.substr(prefix.size());
  }
  return {};
}

std::vector<runtime::Request> Requests(const std::map<std::string, runtime::ObjectPtr>& pools) {
  std::vector<runtime::Request> out;
  out.reserve(pools.size());
  for (const auto& [key, pool] : pools)
    out.push_back({std::string(pool->Namespace()), std::string(pool->Name())});
  return out;
}

void AddSelecting(const runtime::Store& pools, const std::set<std::string>& keys,
                  const k8s::JsonObject& node, std::map<std::string, runtime::ObjectPtr>& out) {
  for (runtime::ObjectPtr& pool : PoolsSelecting(pools, keys, node))
    out.emplace(pool->Key(), std::move(pool));
}

}  // namespace

std::vector<std::pair<std::string, runtime::IndexFunc>> PoolIndexes() {
  std::vector<std::pair<std::string, runtime::IndexFunc>> out;
  out.emplace_back(kPoolSelectorPairIndex, [](const k8s::JsonObject& pool) {
    std::vector<std::string> values;
    for (const auto& [key, value] : SelectorOf(pool)) values.push_back(Pair(key, value));
    if (values.empty()) values.push_back(kEverySelector);
    return values;
  });
  out.emplace_back(kPoolSelectorKeyIndex, [](const k8s::JsonObject& pool) {
    return pool.Keys({"spec", "nodeSelector"});
  });
  out.emplace_back(kPoolNodeMarkIndex, [](const k8s::JsonObject& pool) {
    return std::vector<std::string>{NodePoolAnnotation("", pool.Namespace(), pool.Name())};
  });
  return out;
}

std::set<std::string> PoolSelectorKeys(const runtime::Store& pools) {
  StatusOr<std::vector<std::string>> keys = pools.IndexValues(kPoolSelectorKeyIndex);
  if (!keys.ok()) return controllers::LabelKeysToKeep(pools.List());
  return {std::make_move_iterator(keys->begin()), std::make_move_iterator(keys->end())};
}

std::vector<runtime::ObjectPtr> PoolsSelecting(const runtime::Store& pools,
                                               const std::set<std::string>& keys,
                                               const k8s::JsonObject& node) {
  const std::map<std::string, std::string> labels = node.Labels();
  std::vector<runtime::ObjectPtr> candidates;
  StatusOr<std::vector<runtime::ObjectPtr>> every = pools.ByIndex(kPoolSelectorPairIndex, "*");
  if (!every.ok()) {
    candidates = pools.List();
  } else {
    candidates = std::move(*every);
    for (const std::string& key : keys) {
      auto label = labels.find(key);
      if (label == labels.end()) continue;
      StatusOr<std::vector<runtime::ObjectPtr>> filed =
          pools.ByIndex(kPoolSelectorPairIndex, Pair(key, label->second));
      if (filed.ok()) candidates.insert(candidates.end(), filed->begin(), filed->end());
    }
  }
  // A pool with several pairs is filed under each: keep one of each, and only full matches.
  std::map<std::string, runtime::ObjectPtr> selecting;
  for (runtime::ObjectPtr& pool : candidates) {
    if (controllers::SelectorMatches(SelectorOf(*pool), labels))
      selecting.emplace(pool->Key(), std::move(pool));
  }
  std::vector<runtime::ObjectPtr> out;
  out.reserve(selecting.size());
  for (auto& [key, pool] : selecting) out.push_back(std::move(pool));
  return out;
}

runtime::MapFunc EnqueuePoolsOfNode(const runtime::Store& pools) {
  return [&pools](const k8s::JsonObject& node) {
    std::map<std::string, runtime::ObjectPtr> found;
    AddSelecting(pools, PoolSelectorKeys(pools), node, found);
    std::set<std::string_view> marks;
    const std::map<std::string, std::string> labels = node.Labels();
    const std::map<std::string, std::string> annotations = node.Annotations();
    for (const auto& [key, value] : labels) {
      if (std::string_view mark = TrackLabelMark(key); !mark.empty()) marks.insert(mark);
    }
    for (const auto& [key, value] : annotations) {
      if (std::string_view mark = AnnotationMark(key); !mark.empty()) marks.insert(mark);
    }
    for (std::string_view mark : marks) {
      StatusOr<std::vector<runtime::ObjectPtr>> marked =
          pools.ByIndex(kPoolNodeMarkIndex, std::string(mark));
      if (!marked.ok()) {  // no index: every pool, as before the index
        for (runtime::ObjectPtr& pool : pools.List()) found.emplace(pool->Key(), std::move(pool));
        break;
      }
      for (runtime::ObjectPtr& pool : *marked) found.emplace(pool->Key(), std::move(pool));
    }
    return Requests(found);
  };
}

runtime::MapFunc EnqueuePoolsOfRdmaNode(const runtime::Store& pools, const runtime::Store& nodes) {
  return [&pools, &nodes](const k8s::JsonObject& rdmanode) {
    const runtime::ObjectPtr node = nodes.Get(std::string(rdmanode.Name()));
    // A report of a node the cache does not hold concerns no pool: each pool reads the reports
    // of the cached nodes it selects.
    if (node == nullptr) return std::vector<runtime::Request>{};
    std::map<std::string, runtime::ObjectPtr> found;
    AddSelecting(pools, PoolSelectorKeys(pools), *node, found);
    return Requests(found);
  };
}

runtime::MapFunc EnqueuePoolsSharingNodes(const runtime::Store& pools,
                                          const runtime::Store& nodes) {
  return [&pools, &nodes](const k8s::JsonObject& pool) {
    const crd::StringMap selector = SelectorOf(pool);
    const std::set<std::string> keys = PoolSelectorKeys(pools);
    std::map<std::string, runtime::ObjectPtr> found;
    for (const runtime::ObjectPtr& node : nodes.List()) {
      if (controllers::SelectorMatchesLabelsOf(selector, *node))
        AddSelecting(pools, keys, *node, found);
    }
    return Requests(found);
  };
}

}  // namespace rdmastack::gatewaypool
