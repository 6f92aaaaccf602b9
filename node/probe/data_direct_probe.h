#pragma once
// ConnectX-8 Data Direct (PCI 15b3:2100): a second PCIe function of the NIC, a DMA engine that
// may sit near the GPU while the NIC's own function hangs off the CPU (GB300-style trays). The
// kernel's mlx5 driver binds it to the RDMA device whose firmware reports the same vendor-unique
// ID as the function's VPD, and libmlx5 names it (mlx5dv_get_data_direct_sysfs_path); NCCL then
// measures the GPU's path to the NIC from it. This file reads the functions from sysfs and checks
// what the device prober was told against them.

#include <vector>

#include "node/probe/facts.h"
#include "node/probe/host_root.h"
#include "node/probe/pci_device.h"

namespace rdmastack::node {

inline constexpr uint32_t kDataDirectVendor = 0x15b3;
inline constexpr uint32_t kDataDirectDevice = 0x2100;

// Every 15b3:2100 function among `functions` (ListPciVendors), with the driver bound to it.
std::vector<DataDirectFunction> ProbeDataDirectFunctions(const HostRoot& root,
                                                         const std::vector<PciVendor>& functions);

// For each device the prober found a Data Direct path for: keeps it only when it is a plain
// sysfs device path ("/devices/..." without "..") of a 15b3:2100 function below the root, and
// fills data_direct_pci and the root-relative data_direct_path. Anything else becomes kUnknown
// with the reason in data_direct_detail and an issue in area "rdma".
void ResolveDataDirect(const HostRoot& root, std::vector<RdmaDevice>* devices,
                       std::vector<ProbeIssue>* issues);

}  // namespace rdmastack::node
