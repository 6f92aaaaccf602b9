#pragma once
// A GPU's PCIe paths to the node's RDMA NICs from the agent's facts, nearest first: what the
// agent reports per GPU (nic_paths) and what the client's per-GPU NIC choice reads.

#include <string_view>
#include <vector>

#include "node/probe/facts.h"

namespace rdmastack::node::checks {

// Ties keep the probe's order; a path type that is not one of NCCL's four goes last.
std::vector<const GpuNicPath*> PathsFrom(const NodeFacts& facts, std::string_view gpu);

}  // namespace rdmastack::node::checks
