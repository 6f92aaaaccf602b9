#pragma once
// The pools cache's indexes (controllers/common/selector_index.h) with the pools' own node mark:
// the name their track labels and per-pool node annotations carry (NodePoolAnnotation without a
// prefix), and the mapping of a pool's own change to the pools it may collide with.

#include "controllers/common/selector_index.h"
#include "operator/runtime/predicates.h"
#include "operator/runtime/store.h"

namespace rdmastack::gatewaypool {

// The selector indexes and the pools' node mark, to add to the pools' informer (or a test's
// store).
controllers::NamedIndexes PoolIndexes();

// A Node's change: the pools that select it, and those whose track labels or per-pool
// annotations it carries (a pool that stopped selecting it still has its marks to remove).
runtime::MapFunc EnqueuePoolsOfNode(const runtime::Store& pools);
// A pool's spec change or deletion: the pools that select one of its nodes (a collision may start
// or end there, pool_conflict.h). Both the old and the new selector are mapped.
runtime::MapFunc EnqueuePoolsSharingNodes(const runtime::Store& pools, const runtime::Store& nodes);

}  // namespace rdmastack::gatewaypool
