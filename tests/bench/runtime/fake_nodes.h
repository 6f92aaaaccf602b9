#pragma once
// Fake Node objects for the informer benchmark: about 13 KB each, shaped like a busy GPU node
// (about 100 labels, capacity/allocatable, 5 conditions, 30 images with digests).

#include <string>

#include "operator/k8s/client.h"

namespace rdmastack::bench {

// Node number `index` (name bench-node-00042). Not managed by kwok (no kwok annotation).
k8s::JsonObject FakeNode(int index);

// Creates bench-node-00000 .. count-1 with `threads` parallel writers unless the cluster already
// has `count` nodes; existing ones are kept. Returns how many were created.
StatusOr<int> CreateFakeNodes(k8s::Client& client, int count, int threads);

// The fields the trimmed informer keeps: the labels and resources an operator acts on.
std::vector<k8s::JsonPath> TrimmedNodeFields();

}  // namespace rdmastack::bench
