#include "node/checks/gpu_checks.h"

#include <algorithm>

#include "node/checks/checks.h"
#include "node/probe/parsers.h"

namespace rdmastack::node::checks {
namespace {

// The NIC-side dma-buf answer over all usable devices: yes if any says yes.
Tristate NicDmaBuf(const NodeFacts& facts, std::string* detail) {
  Tristate out = Tristate::kUnknown;
  *detail = "no RDMA device to probe";
  for (const RdmaDevice* d : UsableDevices(facts)) {
    if (d->dmabuf_supported == Tristate::kYes) {
      *detail = d->name + ": " + d->dmabuf_detail;
      return Tristate::kYes;
    }
    if (d->dmabuf_supported == Tristate::kNo) {
      out = Tristate::kNo;
      *detail = d->name + ": " + d->dmabuf_detail;
    } else if (detail->empty() || *detail == "no RDMA device to probe") {
      *detail = d->name + ": " + (d->dmabuf_detail.empty() ? "not probed" : d->dmabuf_detail);
    }
  }
  return out;
}

}  // namespace

bool KernelHasDmaBufMr(int major, int minor) {
  return major > 5 || (major == 5 && minor >= 12);
}

CheckResult CheckGpuPresent(const NodeFacts& facts) {
  const char* id = "gpu.present";
  if (!facts.gpus.empty()) {
    std::vector<Said> said;
    for (const auto& g : facts.gpus)
      said.push_back({g.model + " (" + g.pci_address + ")", g.pci_address, g.model});
    return Pass(id, JoinGrouped(said));
  }
  const std::string issues = DescribeIssues(facts, "gpu");
  if (!issues.empty()) {
    return Unknown(id, "GpuSysfsUnreadable", "cannot list GPUs: " + issues,
                   "Mount the host's /sys.");
  }
  return Fail(id, "NoGpu", "no NVIDIA GPU (vendor 0x10de, class 0x0300/0x0302) on the PCI bus",
              "Use transport HostMemory on nodes without GPUs, or select GPU nodes only.");
}

CheckResult CheckNvidiaDriver(const NodeFacts& facts) {
  const char* id = "gpu.driver";
  const auto& d = facts.drivers;
  if (d.nvidia_driver_version.empty() && !d.Loaded("nvidia")) {
    return Fail(id, "NvidiaDriverNotLoaded", "the nvidia kernel module is not loaded",
                "Install the NVIDIA driver (GPU Operator or host packages); the open kernel module "
                "enables dma-buf.");
  }
  std::string flavor =
      d.nvidia_module_flavor.empty() ? "module type unknown" : d.nvidia_module_flavor;
  return Pass(id, "NVIDIA driver " +
                      (d.nvidia_driver_version.empty() ? "?" : d.nvidia_driver_version) + " (" +
                      flavor + ")");
}

CheckResult CheckPeerMem(const NodeFacts& facts) {
  const char* id = "gpu.peermem";
  const auto& d = facts.drivers;
  if (d.Loaded("nvidia_peermem")) {
    const Module* m = d.Find("nvidia_peermem");
    return Pass(id, "nvidia_peermem loaded" + (m->version.empty() ? "" : " (" + m->version + ")"));
  }
  if (d.peer_memory_api) {
    return Fail(id, "PeerMemNotLoaded",
                "nvidia_peermem is not loaded; the ib_core on this node has the PeerDirect API (" +
                    (d.ib_core_flavor.empty() ? "ib_core" : d.ib_core_flavor) + ")",
                "modprobe nvidia-peermem (GPU Operator: driver.rdma.enabled=true), or allow "
                "loadPeerMem in the "
                "ClientProfile.");
  }
  return Fail(id, "PeerMemNotLoaded",
              "nvidia_peermem is not loaded and the " +
                  (d.ib_core_flavor.empty() ? std::string("RDMA") : d.ib_core_flavor) +
                  " ib_core lacks the PeerDirect API (ib_register_peer_memory_client)",
              "Install MOFED/DOCA-OFED and modprobe nvidia-peermem, or use DMABuf (open kernel "
              "module, kernel >= 5.12).");
}

CheckResult CheckDmaBuf(const NodeFacts& facts) {
  const char* id = "gpu.dmabuf";
  const auto& d = facts.drivers;
  std::string nic_detail;
  const Tristate nic = NicDmaBuf(facts, &nic_detail);
  const std::string remedy_module =
      "Switch to the NVIDIA open kernel module (GPU Operator driver.kernelModuleType=open) or use "
      "PeerMem.";
  if (d.nvidia_module_flavor == "Proprietary") {
    return Fail(id, "DmaBufUnsupported",
                "the proprietary NVIDIA kernel module cannot export dma-buf", remedy_module);
  }
  if (d.nvidia_module_flavor.empty()) {
    return Unknown(id, "DmaBufUnverified",
                   "NVIDIA kernel module type unknown (open vs proprietary)",
                   "Mount the host's /proc (proc/driver/nvidia/version).");
  }
  if (facts.kernel.major > 0 && !KernelHasDmaBufMr(facts.kernel.major, facts.kernel.minor) &&
      nic != Tristate::kYes) {
    return Fail(id, "DmaBufUnsupported",
                "kernel " + facts.kernel.release + " predates dma-buf memory regions (5.12)",
                "Use a kernel >= 5.12 (or a distro kernel with the RDMA dma-buf backport), or use "
                "PeerMem.");
  }
  for (const auto& g : facts.gpus) {
    if (!g.turing_or_newer) {
      return Fail(id, "DmaBufUnsupported",
                  g.model + " (" + g.pci_address + ") is older than Turing",
                  "dma-buf needs a Turing or newer GPU; use PeerMem.");
    }
    if (g.dma_buf_attr == Tristate::kNo) {
      return Fail(id, "DmaBufUnsupported",
                  "CUDA reports CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED=0 for " + g.pci_address,
                  "Use the open kernel module with a CUDA >= 11.7 driver, or use PeerMem.");
    }
  }
  if (nic == Tristate::kNo) {
    return Fail(
        id, "DmaBufUnsupported",
        "the RDMA stack refuses dma-buf registrations (" + nic_detail + ")",
        "EOPNOTSUPP: update the NIC driver/provider; EPROTONOSUPPORT: kernel uverbs too old; "
        "missing symbol: rdma-core >= 34.");
  }
  if (nic == Tristate::kUnknown) {
    return Unknown(
        id, "DmaBufUnverified",
        "open module and kernel " + facts.kernel.release + " fit, but the NIC probe did not run (" +
            nic_detail + ")",
        "Run the agent with libibverbs and /dev/infiniband so ibv_reg_dmabuf_mr can be probed.");
  }
  return Pass(id, "dma-buf registration works (" + nic_detail + ", open module, kernel " +
                      facts.kernel.release + ")");
}

CheckResult CheckBar1(const NodeFacts& facts, int64_t max_transfer_bytes) {
  const char* id = "gpu.bar1";
  std::vector<std::string> small, unknown;
  std::vector<Said> ok;
  std::string too_small;
  for (const auto& g : facts.gpus) {
    const std::string name = g.model + " " + g.pci_address;
    if (g.bar1_total_bytes <= 0) {
      unknown.push_back(name + ": " + DescribeIssues(facts, "gpu", g.pci_address));
      continue;
    }
    const bool nvml = g.bar1_free_bytes >= 0;
    const int64_t free = nvml ? g.bar1_free_bytes : g.bar1_total_bytes - kBar1DriverBytes;
    const std::string bar1 =
        "BAR1 " + FormatBytes(g.bar1_total_bytes) +
        (nvml ? ", free " + FormatBytes(free) : " (sysfs; free not known without NVML)");
    const std::string text = name + " " + bar1;
    if (max_transfer_bytes > 0 && max_transfer_bytes + kBar1ReserveBytes > free &&
        too_small.empty()) {
      too_small = name + ": a " + FormatBytes(max_transfer_bytes) + " transfer plus " +
                  FormatBytes(kBar1ReserveBytes) + " headroom does not fit BAR1 free " +
                  FormatBytes(free) + " (total " + FormatBytes(g.bar1_total_bytes) + ")";
      continue;
    }
    if (g.bar1_total_bytes < kBar1SmallBytes) {
      small.push_back(text);
    } else {
      ok.push_back({text, g.pci_address, g.model + " " + bar1});
    }
  }
  if (!too_small.empty()) {
    int64_t limit = 0;
    for (const auto& g : facts.gpus) {
      int64_t free =
          g.bar1_free_bytes >= 0 ? g.bar1_free_bytes : g.bar1_total_bytes - kBar1DriverBytes;
      if (g.bar1_total_bytes > 0 && (limit == 0 || free - kBar1ReserveBytes < limit))
        limit = free - kBar1ReserveBytes;
    }
    return Fail(id, "Bar1TooSmall", too_small,
                "Lower maxTransferSize below " + FormatBytes(std::max<int64_t>(limit, 0)) +
                    ", use transport HostMemory, or enable a larger BAR1 (resizable BAR / "
                    "display-off mode).");
  }
  if (!unknown.empty() && ok.empty() && small.empty()) {
    return Unknown(
        id, "Bar1Unknown", "BAR1 size unknown: " + JoinList(unknown, "; "),
        "Check sys/bus/pci/devices/<gpu>/resource, or run with NVML (libnvidia-ml.so.1).");
  }
  if (!small.empty()) {
    return Warn(id, "Bar1Small",
                JoinList(small, "; ") + "; GPU-direct registrations are capped by BAR1",
                "Keep GPU buffers (sum of in-flight transfers) below BAR1 free, or use HostMemory "
                "for large objects.");
  }
  return Pass(id, JoinGrouped(ok, "; "));
}

namespace {

// The Data Direct functions on the node that no RDMA device uses.
std::vector<const DataDirectFunction*> IdleDataDirectFunctions(const NodeFacts& facts) {
  std::vector<const DataDirectFunction*> idle;
  for (const DataDirectFunction& fn : facts.data_direct_functions) {
    const bool used = std::any_of(
        facts.rdma_devices.begin(), facts.rdma_devices.end(), [&fn](const RdmaDevice& d) {
          return d.data_direct == Tristate::kYes && d.data_direct_pci == fn.pci_address;
        });
    if (!used) idle.push_back(&fn);
  }
  return idle;
}

// Idle Data Direct functions: the likely cause of a far path.
std::string IdleDataDirectNote(const NodeFacts& facts) {
  const size_t idle = IdleDataDirectFunctions(facts).size();
  if (idle == 0) return "";
  return "; " + std::to_string(idle) +
         " Data Direct function(s) on this node serve no NIC (gpu.data-direct)";
}

}  // namespace

CheckResult CheckGpuNicDistance(const NodeFacts& facts, PathType max_distance) {
  const char* id = "gpu.nic-distance";
  std::vector<std::string> far, unknown;
  std::vector<Said> ok;
  for (const auto& g : facts.gpus) {
    if (g.path_type.empty()) {
      unknown.push_back(g.pci_address);
      continue;
    }
    PathType t = PathType::kSys;
    ParsePathType(g.path_type, &t);
    const std::string pair = g.pci_address + " -> " + g.nearest_nic;
    std::string path = g.path_type;
    if (!g.nearest_nic_via.empty()) path += " via Data Direct " + g.nearest_nic_via;
    const RdmaDevice* nic = facts.FindDevice(g.nearest_nic);
    if (g.numa_node < 0 && nic != nullptr && nic->numa_node < 0) {
      // Flat VM topologies and some firmware report no NUMA node; the path is then a guess.
      path +=
          " (NUMA unknown: in a VM this says nothing about the physical path, and P2P may be "
          "blocked)";
    }
    if (static_cast<int>(t) > static_cast<int>(max_distance)) {
      far.push_back(pair + " " + path);
    } else {
      ok.push_back({pair + " " + path, pair, path});
    }
  }
  const std::string max = PathTypeName(max_distance);
  if (!far.empty()) {
    return Fail(
        id, "GpuNicTooFar",
        JoinList(far) + " is farther than " + max +
            " (NCCL disables GPU-direct beyond PXB by default)" + IdleDataDirectNote(facts),
        "Use a NIC under the same PCIe switch as the GPU, pin the client to the NIC's NUMA node, "
        "or raise maxGpuNicDistance knowingly (traffic crosses the host bridge / CPU "
        "interconnect).");
  }
  if (ok.empty()) {
    const std::string issues = DescribeIssues(facts, "pci");
    return Unknown(id, "TopologyUnknown",
                   "no GPU <-> RDMA NIC PCIe path could be computed" +
                       (HardwareDevices(facts).empty() ? std::string(" (no RDMA device)") : "") +
                       (issues.empty() ? "" : ": " + issues),
                   "Check that sys/bus/pci/devices links resolve for the GPU and the NIC.");
  }
  std::string msg = JoinGrouped(ok) + " (max " + max + ")";
  if (!unknown.empty()) msg += "; unknown: " + JoinList(unknown);
  return Pass(id, msg);
}

CheckResult CheckAcsRedirect(const NodeFacts& facts) {
  const char* id = "gpu.acs";
  std::vector<std::string> redirect, unknown, clear;
  for (const auto& g : facts.gpus) {
    if (g.nearest_nic.empty()) continue;  // no path: gpu.nic-distance says so
    const std::string pair = g.pci_address + " -> " + g.nearest_nic;
    switch (g.acs_redirect) {
      case Tristate::kYes:
        redirect.push_back(pair + " at bridge " + JoinList(g.acs_redirect_bridges));
        break;
      case Tristate::kUnknown: unknown.push_back(pair); break;
      case Tristate::kNo: clear.push_back(pair); break;
    }
  }
  if (!redirect.empty()) {
    return Fail(
        id, "AcsRedirectOnPath",
        "PCIe ACS redirects peer-to-peer requests up to the root complex: " +
            JoinList(redirect, "; ") +
            " (lspci -vvv shows ACSCtl ReqRedir+ or CmpltRedir+ on the bridge)",
        "Turn ACS redirect off on the bridges named, in the BIOS (ACS or IOMMU/VT-d "
        "settings) or at each boot with setpci -s <bridge> ECAP_ACS+0x6.w=0000, or use "
        "transport HostMemory; do not turn it off where the IOMMU isolates tenants' devices.");
  }
  if (!unknown.empty()) {
    const std::string issues = DescribeIssues(facts, "topology", "/config");
    return Unknown(id, "AcsUnknown",
                   "ACS of the bridges between " + JoinList(unknown) + " could not be read" +
                       (issues.empty() ? "" : ": " + issues),
                   "Run the check as root (the agent's DaemonSet is privileged): ACS is in the "
                   "extended configuration space, which sysfs shows only to a reader with "
                   "CAP_SYS_ADMIN. GPU-direct stays allowed, as not fully verified.");
  }
  if (clear.empty()) return Pass(id, "no GPU <-> NIC path to check");
  return Pass(id, "no bridge redirects peer-to-peer traffic on " +
                      (clear.size() >= 3
                           ? "any of the " + std::to_string(clear.size()) + " GPU <-> NIC paths"
                           : JoinList(clear)));
}

CheckResult CheckIommu(const NodeFacts& facts) {
  const char* id = "gpu.iommu";
  std::vector<std::string> translated, unknown, modes;
  for (const auto& g : facts.gpus) {
    if (g.nearest_nic.empty()) continue;
    const std::string pair = g.pci_address + " -> " + g.nearest_nic;
    if (g.iommu == "translated") {
      translated.push_back(pair + ": " + g.iommu_detail);
    } else if (g.iommu.empty()) {
      unknown.push_back(pair);
    } else if (std::find(modes.begin(), modes.end(), g.iommu) == modes.end()) {
      modes.push_back(g.iommu);
    }
  }
  if (!translated.empty()) {
    return Fail(id, "IommuTranslating",
                "the IOMMU translates DMA on the GPU-direct path: " + JoinList(translated, "; ") +
                    "; GPUDirect RDMA needs it off or in pass-through (1:1)",
                "Boot with iommu=pt (Intel: intel_iommu=on iommu=pt), or set the group to "
                "pass-through (echo identity > /sys/kernel/iommu_groups/N/type with no driver "
                "bound), or use transport HostMemory.");
  }
  if (!unknown.empty()) {
    const std::string issues = DescribeIssues(facts, "topology", "iommu");
    return Unknown(id, "IommuUnknown",
                   "the IOMMU mode of " + JoinList(unknown) + " could not be told" +
                       (issues.empty() ? "" : ": " + issues),
                   "Check dmesg for DMAR/AMD-Vi and the kernel command line; GPU-direct stays "
                   "allowed, as not fully verified.");
  }
  if (modes.empty()) return Pass(id, "no GPU <-> NIC path to check");
  return Pass(id, "IOMMU " + JoinList(modes) + " on every GPU <-> NIC path");
}

CheckResult CheckPeerMemAbi(const NodeFacts& facts) {
  const char* id = "gpu.peermem-abi";
  std::vector<std::string> drifted, unread, same;
  for (const ModuleFile& m : facts.drivers.module_files) {
    if (m.file_srcversion.empty()) {
      unread.push_back(m.name + " (" + m.not_read + ")");
    } else if (m.file_srcversion != m.loaded_srcversion) {
      drifted.push_back(m.name + ": loaded srcversion " + m.loaded_srcversion + ", " + m.path +
                        " on disk " + m.file_srcversion);
    } else {
      same.push_back(m.name);
    }
  }
  if (!drifted.empty()) {
    return Warn(id, "PeerMemAbiDrift",
                "modules on disk differ from the loaded ones (a driver upgraded without a "
                "reload): " +
                    JoinList(drifted, "; ") +
                    "; GPU-direct works until the next reload or reboot, when nvidia_peermem may "
                    "not load against the new ib_core (\"Unknown symbol "
                    "ib_register_peer_memory_client\")",
                "Rebuild nvidia_peermem against the installed network driver (GPU Operator: "
                "restart the driver pod with driver.rdma.enabled=true; DKMS: dkms autoinstall), "
                "then drain the node and reload (rmmod nvidia_peermem; restart openibd or "
                "reload mlx5_ib/ib_core; modprobe nvidia-peermem) or reboot.");
  }
  if (!unread.empty()) {
    return Unknown(id, "PeerMemAbiUnknown",
                   "the module files on disk could not be compared with the loaded ones: " +
                       JoinList(unread, "; "),
                   "Compare by hand: modinfo -F srcversion MODULE against "
                   "/sys/module/MODULE/srcversion (compressed modules, .ko.zst or .ko.xz, are "
                   "not read). GPU-direct is not affected now.");
  }
  if (same.empty()) return Pass(id, "nvidia_peermem is not loaded, or built in: nothing to drift");
  return Pass(id, "loaded " + JoinList(same) + " match their files on disk");
}

CheckResult CheckDataDirect(const NodeFacts& facts) {
  const char* id = "gpu.data-direct";
  std::vector<std::string> bound, refused, unasked;
  for (const RdmaDevice& d : facts.rdma_devices) {
    if (d.data_direct == Tristate::kYes) {
      bound.push_back(d.name + " via " + d.data_direct_pci);
    } else if (d.data_direct == Tristate::kNo) {
      refused.push_back(d.name);
    } else if (!d.data_direct_detail.empty()) {
      unasked.push_back(d.name + " (" + d.data_direct_detail + ")");
    }
  }
  std::vector<std::string> idle;
  for (const DataDirectFunction* fn : IdleDataDirectFunctions(facts))
    idle.push_back(fn->pci_address +
                   (fn->driver.empty() ? " (no driver)" : " (" + fn->driver + ")"));
  if (idle.empty()) {
    if (bound.empty()) return Pass(id, "no Data Direct function on this node");
    return Pass(id, "GPU DMA through Data Direct: " + JoinList(bound));
  }
  const std::string functions = "Data Direct function" + std::string(idle.size() > 1 ? "s " : " ") +
                                JoinList(idle) + " serve" + (idle.size() > 1 ? "" : "s") +
                                " no RDMA device";
  if (!refused.empty()) {
    return Warn(id, "DataDirectNotBound",
                functions + ": " + JoinList(refused) +
                    " answered ENODEV, so GPU DMA goes through the NICs' own functions "
                    "(gpu.nic-distance says how far they are)",
                "Bind the functions: run a kernel whose mlx5_ib drives Data Direct (upstream "
                "mlx5_ib with data_direct, or DOCA-OFED) and check with lspci -k -s BDF that a "
                "driver is in use; the function's VPD must carry the NIC's VU keyword. The agent "
                "sees the change at its next probe.");
  }
  return Unknown(id, "DataDirectUnknown",
                 functions + " that the agent could tell" +
                     (unasked.empty() ? std::string() : ": " + JoinList(unasked, "; ")),
                 "Run an agent image whose libmlx5 has mlx5dv_get_data_direct_sysfs_path "
                 "(rdma-core 54 or later); GPU DMA meanwhile is measured from the NICs' own "
                 "functions.");
}

}  // namespace rdmastack::node::checks
