#pragma once
// The loaded modules nvidia_peermem's ABI rests on, each beside the file `modprobe` would load for
// it now. A network-driver upgrade (MOFED/DOCA-OFED, a DKMS rebuild) replaces ib_core on disk
// while the old one stays loaded; nothing breaks until the next reload or reboot, when an
// nvidia_peermem built against the old ib_core fails to load ("disagrees about version of
// symbol", "Unknown symbol ib_register_peer_memory_client") and GPU-direct is gone. The check
// gpu.peermem-abi (PeerMemAbiDrift) reads these facts.

#include <string>
#include <vector>

#include "node/probe/facts.h"
#include "node/probe/host_root.h"

namespace rdmastack::node {

// ib_core, ib_uverbs (the peer-memory API lives in one of them, by driver), mlx5_ib (the
// provider, replaced with them by a network-driver upgrade), nvidia and nvidia_peermem itself.
const std::vector<std::string>& ModuleFilesWatched();

// For each watched module that is loaded with a srcversion (a module built into the kernel has
// none and cannot drift): its file from modules.dep and that file's .modinfo srcversion, or why it
// was not read. Nothing when nvidia_peermem is not loaded.
std::vector<ModuleFile> ProbeModuleFiles(const HostRoot& root, const KernelFacts& kernel,
                                         const DriverFacts& drivers,
                                         std::vector<ProbeIssue>* issues);

}  // namespace rdmastack::node
