#pragma once
// Kernel release, kernel modules and driver flavours, RDMA netns mode and /dev/infiniband
// (node-detection-spec §3, §7).

#include <vector>

#include "agents/node-agent/probe/facts.h"
#include "agents/node-agent/probe/host_root.h"

namespace rdmastack::agent {

// The modules reported, in report order.
const std::vector<std::string>& WatchedModules();

KernelFacts ProbeKernel(const HostRoot& root, std::vector<ProbeIssue>* issues);
DriverFacts ProbeDrivers(const HostRoot& root, std::vector<ProbeIssue>* issues);

}  // namespace rdmastack::agent
