#pragma once
// Indexes over the pools' or profiles' cache by what their nodeSelector names, so that a node's
// change, an agent's report or an owner's pass reaches only the owners that select the node.
// Before them, every node change woke every pool and every profile, and a pool's pass read and
// parsed every pool: a tenant's cost grew with the number of tenants, and one tenant's edits woke
// all the others (issue 53).
//
// An owner is filed under each "key=value" of its nodeSelector (an empty selector, which selects
// every node, under "*") and under each key alone; and, in an index of the kind's own
// (kNodeMarkIndex), under the name of the labels or annotations it writes on its nodes, so that a
// node that no longer matches still reaches the owner whose marks it carries.

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "operator/k8s/json_object.h"
#include "operator/runtime/object_ptr.h"
#include "operator/runtime/predicates.h"
#include "operator/runtime/store.h"

namespace rdmastack::controllers {

inline constexpr char kSelectorPairIndex[] = "rdmastack-selector-pair";
inline constexpr char kSelectorKeyIndex[] = "rdmastack-selector-key";
inline constexpr char kNodeMarkIndex[] = "rdmastack-node-mark";

using NamedIndexes = std::vector<std::pair<std::string, runtime::IndexFunc>>;

// The selector indexes and kNodeMarkIndex filed by `mark` (the owner's mark on its nodes).
NamedIndexes SelectorIndexes(std::function<std::string(const k8s::JsonObject& owner)> mark);
// Adds `indexes` to an informer or store; one already there (a shared informer) is kept.
template <typename Indexed>
Status AddIndexes(Indexed& indexed, const NamedIndexes& indexes) {
  for (const auto& [name, index] : indexes) {
    if (Status s = indexed.AddIndex(name, index); !s.ok() && s.code() != StatusCode::kAlreadyExists)
      return s;
  }
  return OkStatus();
}

// The label keys some owner's nodeSelector names (what the Node cache must hold before selectors
// are matched against it); costs the number of distinct keys.
std::set<std::string> IndexedSelectorKeys(const runtime::Store& owners);

// The owners whose nodeSelector selects `node`, by key. `keys`: IndexedSelectorKeys. Reads the
// whole store when it has no selector index.
std::vector<runtime::ObjectPtr> OwnersSelecting(const runtime::Store& owners,
                                                const std::set<std::string>& keys,
                                                const k8s::JsonObject& node);

// A Node's change: the owners that select it, and those filed under a mark `marks_of` finds on it.
runtime::MapFunc EnqueueOwnersOfNode(
    const runtime::Store& owners,
    std::function<std::set<std::string>(const k8s::JsonObject& node)> marks_of);
// An RdmaNode's change: the owners that select its Node (same name), as the Node cache has it.
runtime::MapFunc EnqueueOwnersOfRdmaNode(const runtime::Store& owners, const runtime::Store& nodes);

}  // namespace rdmastack::controllers
