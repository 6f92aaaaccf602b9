#pragma once
// RDMA devices and ports from /sys/class/infiniband (node-detection-spec §1, §8).

#include <vector>

#include "node/probe/facts.h"
#include "node/probe/host_root.h"

namespace rdmastack::node {

// Every device under sys/class/infiniband, with ports and non-zero GIDs, keyed to its PCI
// function and classified by ConnectX generation. Unreadable parts are left unknown and reported
// in `issues` (area "rdma").
std::vector<RdmaDevice> ProbeRdmaDevices(const HostRoot& root, std::vector<ProbeIssue>* issues);

}  // namespace rdmastack::node
