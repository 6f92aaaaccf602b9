#pragma once
// Kernel release, kernel modules and driver flavours, RDMA netns mode and /dev/infiniband
// (node-detection-spec §3, §7).

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "node/probe/facts.h"
#include "node/probe/host_root.h"

namespace rdmastack::node {

// The modules reported, in report order.
const std::vector<std::string>& WatchedModules();

KernelFacts ProbeKernel(const HostRoot& root, std::vector<ProbeIssue>* issues);
DriverFacts ProbeDrivers(const HostRoot& root, std::vector<ProbeIssue>* issues);

// modules.dep is read up to this size (a distribution kernel's is under 1 MiB).
inline constexpr size_t kModulesDepLimit = 64 << 20;

// lib/modules/<release>/modules.dep, or usr/lib/modules/... on merged-/usr hosts: where modprobe
// looks. nullopt when neither is there (the host's /lib/modules not mounted).
std::optional<std::string> ModulesDepFile(const HostRoot& root, const KernelFacts& kernel);

// The module a modules.dep line is for, in underscore spelling:
// "kernel/drivers/video/nvidia-peermem.ko.zst: kernel/..." -> "nvidia_peermem"; "" for no module.
std::string ModuleNameOfDepLine(std::string_view line);

// The path `dep_file` (a modules.dep) gives for each of `names` that it lists (the first line for
// it: depmod writes one), as written there: relative to its folder, or absolute from an old
// depmod. Stops reading once every name is found.
StatusOr<std::map<std::string, std::string>> ModulePathsInModulesDep(
    const HostRoot& root, const std::string& dep_file, const std::vector<std::string>& names);

// Whether `module` (underscore spelling) is installed for the running kernel: loaded, or listed in
// lib/modules/<release>/modules.dep (usr/lib/modules on merged-/usr hosts), which is where modprobe
// looks. kUnknown when neither file is there (the host's /lib/modules not mounted).
Tristate ProbeModuleInstalled(const HostRoot& root, const KernelFacts& kernel,
                              const DriverFacts& drivers, std::string_view module,
                              std::vector<ProbeIssue>* issues);

}  // namespace rdmastack::node
