#pragma once
// NVIDIA GPUs from /sys/bus/pci/devices: model, architecture, NUMA node and the framebuffer
// aperture (BAR1) size from the resource file (node-detection-spec §5.1, including the
// correction about where BAR1 sits).

#include <vector>

#include "node/probe/facts.h"
#include "node/probe/host_root.h"
#include "node/probe/pci_device.h"

namespace rdmastack::node {

// `functions`: the PCI functions with their vendors (ListPciVendors).
std::vector<Gpu> ProbeGpus(const HostRoot& root, const std::vector<PciVendor>& functions,
                           std::vector<ProbeIssue>* issues);

// Fills gpu_nic_paths and each GPU's nearest NIC (hardware RDMA devices only). Reads the ids of
// switch ports from `root` to flatten Broadcom two-level switches as NCCL does.
void ComputeGpuNicPaths(const HostRoot& root, NodeFacts* facts);

}  // namespace rdmastack::node
