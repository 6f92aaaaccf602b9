#pragma once
// The pools cache's indexes, so that a pool's pass and a node's change reach only the pools they
// concern. Before them a pass read and parsed every pool to look for collisions, and any node's or
// pool's change woke every pool: a tenant's pass cost grew with the number of pools in the
// cluster, and one tenant's edits woke all the others (issue 53).
//
// A pool is filed under each "key=value" of its nodeSelector (an empty selector, which selects
// every node, under "*"), under each selector key alone, and under the name its track labels and
// per-pool node annotations carry (NodePoolAnnotation without a prefix).

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "operator/k8s/json_object.h"
#include "operator/runtime/object_ptr.h"
#include "operator/runtime/predicates.h"
#include "operator/runtime/store.h"

namespace rdmastack::gatewaypool {

inline constexpr char kPoolSelectorPairIndex[] = "rdmastack-selector-pair";
inline constexpr char kPoolSelectorKeyIndex[] = "rdmastack-selector-key";
inline constexpr char kPoolNodeMarkIndex[] = "rdmastack-node-mark";

// The three indexes, to add to the pools' informer (or a test's store).
std::vector<std::pair<std::string, runtime::IndexFunc>> PoolIndexes();

// The label keys some pool's nodeSelector names (what the Node cache must hold before selectors
// are matched against it); costs the number of distinct keys.
std::set<std::string> PoolSelectorKeys(const runtime::Store& pools);

// The pools whose nodeSelector selects `node`, by key. `keys`: PoolSelectorKeys. Reads the whole
// store when it has no selector index.
std::vector<runtime::ObjectPtr> PoolsSelecting(const runtime::Store& pools,
                                               const std::set<std::string>& keys,
                                               const k8s::JsonObject& node);

// A Node's change: the pools that select it, and those whose track labels or per-pool
// annotations it carries (a pool that stopped selecting it still has its marks to remove).
runtime::MapFunc EnqueuePoolsOfNode(const runtime::Store& pools);
// An RdmaNode's change: the pools of its Node (same name), as the Node cache has it.
runtime::MapFunc EnqueuePoolsOfRdmaNode(const runtime::Store& pools, const runtime::Store& nodes);
// A pool's spec change or deletion: the other pools that select one of its nodes (a collision
// may start or end there, pool_conflict.h). Both the old and the new selector are mapped.
runtime::MapFunc EnqueuePoolsSharingNodes(const runtime::Store& pools, const runtime::Store& nodes);

}  // namespace rdmastack::gatewaypool
