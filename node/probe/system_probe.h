#pragma once
// Kernel release, kernel modules and driver flavours, RDMA netns mode and /dev/infiniband
// (node-detection-spec §3, §7).

#include <string_view>
#include <vector>

#include "node/probe/facts.h"
#include "node/probe/host_root.h"

namespace rdmastack::node {

// The modules reported, in report order.
const std::vector<std::string>& WatchedModules();

KernelFacts ProbeKernel(const HostRoot& root, std::vector<ProbeIssue>* issues);
DriverFacts ProbeDrivers(const HostRoot& root, std::vector<ProbeIssue>* issues);

// Whether `module` (underscore spelling) is installed for the running kernel: loaded, or listed in
// lib/modules/<release>/modules.dep (usr/lib/modules on merged-/usr hosts), which is where modprobe
// looks. kUnknown when neither file is there (the host's /lib/modules not mounted).
Tristate ProbeModuleInstalled(const HostRoot& root, const KernelFacts& kernel,
                              const DriverFacts& drivers, std::string_view module,
                              std::vector<ProbeIssue>* issues);

}  // namespace rdmastack::node
