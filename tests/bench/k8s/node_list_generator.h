#pragma once
// Builds a realistic NodeList JSON body: kubelet-style nodes with ~100 labels, annotations,
// capacity/allocatable, conditions, addresses, nodeInfo and a few dozen images (~13 KB each).

#include <string>

namespace rdmastack::k8s::bench {

std::string GenerateNodeList(int nodes);
// The same nodes as a watch-list stream (KEP-3157): one ADDED event per line, then the bookmark
// annotated k8s.io/initial-events-end that ends the initial events.
std::string GenerateNodeWatchList(int nodes);

}  // namespace rdmastack::k8s::bench
