#pragma once
// Builds a realistic NodeList JSON body: kubelet-style nodes with ~100 labels, annotations,
// capacity/allocatable, conditions, addresses, nodeInfo and a few dozen images (~13 KB each).

#include <string>

namespace rdmastack::k8s::bench {

std::string GenerateNodeList(int nodes);

}  // namespace rdmastack::k8s::bench
