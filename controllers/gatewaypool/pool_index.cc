#include "controllers/gatewaypool/pool_index.h"

#include <map>

#include "controllers/common/node_selection.h"
#include "crds/types/gatewaypool_api.h"

namespace rdmastack::gatewaypool {
namespace {

constexpr std::string_view kAnnotationPrefixes[] = {"upgrade.", "maintenance."};

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

}  // namespace

controllers::NamedIndexes PoolIndexes() {
  return controllers::SelectorIndexes([](const k8s::JsonObject& pool) {
    return NodePoolAnnotation("", pool.Namespace(), pool.Name());
  });
}

runtime::MapFunc EnqueuePoolsOfNode(const runtime::Store& pools) {
  return controllers::EnqueueOwnersOfNode(pools, [](const k8s::JsonObject& node) {
    std::set<std::string> marks;
    for (const auto& [key, value] : node.Labels()) {
      if (std::string_view mark = TrackLabelMark(key); !mark.empty()) marks.emplace(mark);
    }
    for (const auto& [key, value] : node.Annotations()) {
      if (std::string_view mark = AnnotationMark(key); !mark.empty()) marks.emplace(mark);
    }
    return marks;
  });
}

runtime::MapFunc EnqueuePoolsSharingNodes(const runtime::Store& pools,
                                          const runtime::Store& nodes) {
  return [&pools, &nodes](const k8s::JsonObject& pool) {
    const crd::StringMap selector = pool.GetStringMap({"spec", "nodeSelector"});
    const std::set<std::string> keys = controllers::IndexedSelectorKeys(pools);
    std::map<std::string, runtime::Request> found;
    for (const runtime::ObjectPtr& node : nodes.List()) {
      if (!controllers::SelectorMatchesLabelsOf(selector, *node)) continue;
      for (const runtime::ObjectPtr& p : controllers::OwnersSelecting(pools, keys, *node))
        found.emplace(p->Key(),
                      runtime::Request{std::string(p->Namespace()), std::string(p->Name())});
    }
    std::vector<runtime::Request> out;
    for (auto& [key, r] : found) out.push_back(std::move(r));
    return out;
  };
}

}  // namespace rdmastack::gatewaypool
