#pragma once
// GPU <-> NIC PCIe path type, computed from sysfs paths the way NCCL builds its topology
// (node-detection-spec §6.4/§6.5): only switch upstream ports become PCI nodes, a device below a
// root port hangs off the CPU node of its NUMA node, and the path type is
//   PIX  same nearest switch,
//   PXB  some common switch (several bridges, no host bridge),
//   PHB  same CPU node (NUMA),
//   SYS  otherwise (crosses the SMP interconnect).

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastack::node {

enum class PathType { kPix = 4, kPxb = 5, kPhb = 8, kSys = 9 };
const char* PathTypeName(PathType t);
// Accepts PIX, PXB, PHB, SYS (case-insensitive). false on anything else.
bool ParsePathType(std::string_view text, PathType* out);

// Tells whether a switch (by the BDF of its upstream port) is a Broadcom PEX Gen4/Gen5 switch,
// which shows up as two levels and which NCCL flattens into one.
using BcmSwitchTest = std::function<bool(std::string_view bdf)>;

// NCCL-style ancestors of a device: switch BDFs nearest first, then "CPU:<numa>". A Broadcom
// sub-switch directly below a Broadcom switch is merged into it.
// `sysfs_path` is the resolved device path ("sys/devices/pci0000:17/0000:17:00.0/...").
std::vector<std::string> NcclAncestors(std::string_view sysfs_path, int numa_node,
                                       const BcmSwitchTest& is_bcm = nullptr);

PathType ComputePathType(std::string_view gpu_path, int gpu_numa, std::string_view nic_path,
                         int nic_numa, const BcmSwitchTest& is_bcm = nullptr);

// The PCI bridges a peer-to-peer transfer between two devices passes through below the deepest
// bridge they share: each side's ancestors after the common part, the devices themselves left
// out, the first device's side first. Empty when the two share no bridge (different root ports:
// the transfer goes through the root complex anyway) or when either path is not a PCI path.
// These are the ports whose ACS redirect would send the transfer up to the root complex.
std::vector<std::string> BridgesBetween(std::string_view a_path, std::string_view b_path);

// The PCIe root complex a device hangs off, as Kubernetes' standard DRA attribute
// resource.kubernetes.io/pcieRoot names it: the host bridge component of its resolved sysfs path
// ("pci0000:17" for "sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0"); "" when the path has
// none (a virtual device, or not a resolved PCI path). Its form is IsPcieRoot's.
std::string PcieRoot(std::string_view sysfs_path);

}  // namespace rdmastack::node
