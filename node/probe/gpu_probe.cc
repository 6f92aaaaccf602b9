#include "node/probe/gpu_probe.h"

#include "node/probe/parsers.h"
#include "node/probe/pci_config.h"
#include "node/probe/pci_device.h"
#include "node/probe/pci_ids.h"
#include "node/probe/pci_topology.h"

namespace rdmastack::node {
namespace {

constexpr char kGpuArea[] = "gpu";
constexpr char kTopologyArea[] = "topology";

bool IsGpuClass(uint32_t pci_class) {
  const uint32_t sub = pci_class >> 8;  // 0x0300 VGA, 0x0302 3D controller
  return sub == 0x0300 || sub == 0x0302;
}

void ReadBar1(const HostRoot& root, Gpu* g, std::vector<ProbeIssue>* issues) {
  const std::string file = "sys/bus/pci/devices/" + g->pci_address + "/resource";
  auto text = root.ReadText(file, 8192);
  if (!text.ok()) {
    issues->push_back({kGpuArea, root.Path(file), text.status().message()});
    return;
  }
  auto lines = ParsePciResource(*text);
  if (!lines.ok()) {
    issues->push_back({kGpuArea, root.Path(file), lines.status().message()});
    return;
  }
  auto bar1 = FindGpuBar1(*lines);
  if (!bar1.ok()) {
    issues->push_back({kGpuArea, root.Path(file), bar1.status().message()});
    return;
  }
  if (!bar1->note.empty()) issues->push_back({kGpuArea, root.Path(file), bar1->note});
  g->bar1_sysfs_bytes = static_cast<int64_t>(bar1->size);
  g->bar1_resource_index = bar1->index;
  g->bar1_total_bytes = g->bar1_sysfs_bytes;
  g->bar1_source = "sysfs";
}

// A PCIe configuration space is 4 KiB; ACS is in its extended part (from 0x100), which sysfs
// gives only to a reader with CAP_SYS_ADMIN (others get the first 64 bytes).
constexpr size_t kPciConfigBytes = 4096;

// Sets g->acs_redirect and acs_redirect_bridges from the ACS control of every bridge a transfer
// between the GPU and the NIC at `nic_path` crosses.
void ReadAcsOnPath(const HostRoot& root, std::string_view nic_path, Gpu* g,
                   std::vector<ProbeIssue>* issues) {
  g->acs_redirect = Tristate::kNo;
  g->acs_redirect_bridges.clear();
  bool unknown = false;
  for (const std::string& bdf : BridgesBetween(g->pci_path, nic_path)) {
    const std::string file = "sys/bus/pci/devices/" + bdf + "/config";
    auto config = root.ReadText(file, kPciConfigBytes);
    StatusOr<std::optional<AcsControl>> acs =
        config.ok() ? FindAcs(*config) : StatusOr<std::optional<AcsControl>>(config.status());
    if (!acs.ok()) {
      issues->push_back({kTopologyArea, root.Path(file),
                         "ACS of the bridge between GPU " + g->pci_address +
                             " and its NIC: " + acs.status().message()});
      unknown = true;
      continue;
    }
    if (acs->has_value() && ((*acs)->RequestRedirect() || (*acs)->CompletionRedirect())) {
      g->acs_redirect_bridges.push_back(bdf);
    }
  }
  if (!g->acs_redirect_bridges.empty()) {
    g->acs_redirect = Tristate::kYes;
  } else if (unknown) {
    g->acs_redirect = Tristate::kUnknown;
  }
}

// The kernel's names for an IOMMU group's default domain (iommu_group/type, Linux 5.11+): only
// "identity" maps DMA 1:1; "unknown" and anything else is not trusted as either.
constexpr std::string_view kTranslatingTypes[] = {"DMA", "DMA-FQ", "unmanaged", "blocked"};

bool PassthroughOnCmdline(const HostRoot& root) {
  auto cmdline = root.ReadAttr("proc/cmdline");
  if (!cmdline.ok()) return false;
  for (std::string_view word : SplitWhitespace(*cmdline)) {
    if (word == "iommu=pt" || word == "iommu.passthrough=1") return true;
  }
  return false;
}

// One device's IOMMU mode (see Gpu::iommu); *detail names the device and type when translated.
std::string IommuModeOf(const HostRoot& root, const std::string& bdf, std::string* detail,
                        std::vector<ProbeIssue>* issues) {
  const std::string group = "sys/bus/pci/devices/" + bdf + "/iommu_group";
  if (!root.Exists(group)) return "off";
  auto type = root.ReadAttr(group + "/type", 64);
  if (type.ok()) {
    if (*type == "identity") return "passthrough";
    for (std::string_view t : kTranslatingTypes) {
      if (*type != t) continue;
      *detail = bdf + " (IOMMU group type " + std::string(t) + ")";
      return "translated";
    }
    issues->push_back({kTopologyArea, root.Path(group + "/type"),
                       "IOMMU group type of " + bdf + " is none of identity, DMA, DMA-FQ, " +
                           "unmanaged, blocked"});
    return "";
  }
  if (PassthroughOnCmdline(root)) return "passthrough";
  issues->push_back({kTopologyArea, root.Path(group + "/type"),
                     "IOMMU group type of " + bdf + ": " + type.status().message() +
                         " (and no iommu=pt on the kernel command line)"});
  return "";
}

// The worse of the GPU's and the NIC's IOMMU mode: translated, then unknown, then pass-through.
void ReadIommuOnPath(const HostRoot& root, const std::string& nic_bdf, Gpu* g,
                     std::vector<ProbeIssue>* issues) {
  auto rank = [](const std::string& mode) {
    return mode == "translated" ? 3 : mode.empty() ? 2 : mode == "passthrough" ? 1 : 0;
  };
  g->iommu = "off";
  g->iommu_detail.clear();
  for (const std::string& bdf : {g->pci_address, nic_bdf}) {
    if (bdf.empty()) continue;
    std::string detail;
    const std::string mode = IommuModeOf(root, bdf, &detail, issues);
    if (rank(mode) <= rank(g->iommu)) continue;
    g->iommu = mode;
    g->iommu_detail = detail;
  }
}

}  // namespace

std::vector<Gpu> ProbeGpus(const HostRoot& root, const std::vector<PciVendor>& functions,
                           std::vector<ProbeIssue>* issues) {
  std::vector<Gpu> out;
  for (const PciVendor& f : functions) {
    const std::string& bdf = f.bdf;
    // Cheap vendor filter first: most functions are not NVIDIA's.
    if (!f.error.empty()) {
      issues->push_back({kGpuArea, root.Path("sys/bus/pci/devices/" + bdf + "/vendor"),
                         f.error + " (cannot tell if it is a GPU)"});
      continue;
    }
    if (f.vendor != "0x10de") continue;
    PciFunction fn;
    if (!ReadPciFunction(root, bdf, kGpuArea, &fn, issues)) continue;
    if (!IsGpuClass(fn.pci_class)) continue;
    Gpu g;
    g.pci_address = bdf;
    g.pci_path = fn.path;
    g.pcie_root = PcieRoot(fn.path);
    g.device_id = HexId(fn.device);
    g.numa_node = fn.numa_node;
    GpuModel model = GpuModelFromDeviceId(fn.device);
    g.model = model.name.empty() ? "NVIDIA GPU " + g.device_id : model.name;
    g.architecture = model.architecture;
    g.turing_or_newer = GpuIsTuringOrNewer(fn.device);
    ReadBar1(root, &g, issues);
    out.push_back(std::move(g));
  }
  return out;
}

namespace {

// Where a NIC's DMA to and from GPU memory enters PCIe: its Data Direct function when it has one
// bound (NCCL measures the path from there too), else its own function.
struct DmaEnd {
  std::string_view path;
  std::string_view pci_address;
  int numa_node = -1;
  std::string via;  // the Data Direct function's address, or ""
};

DmaEnd DmaEndOf(const RdmaDevice& d) {
  if (d.data_direct == Tristate::kYes && !d.data_direct_path.empty())
    return {d.data_direct_path, d.data_direct_pci, d.data_direct_numa_node, d.data_direct_pci};
  return {d.pci_path, d.pci_address, d.numa_node, ""};
}

}  // namespace

void ComputeGpuNicPaths(const HostRoot& root, NodeFacts* facts) {
  facts->gpu_nic_paths.clear();
  // PEX88000 (Gen4) and PEX89000 (Gen5) upstream ports, as NCCL lists them.
  const BcmSwitchTest is_bcm = [&root](std::string_view bdf) {
    const std::string dir = "sys/bus/pci/devices/" + std::string(bdf);
    auto vendor = root.ReadAttr(dir + "/vendor");
    auto device = root.ReadAttr(dir + "/device");
    return vendor.ok() && device.ok() && *vendor == "0x1000" &&
           (*device == "0xc010" || *device == "0xc030");
  };
  for (auto& g : facts->gpus) {
    int best = 0;
    const RdmaDevice* nearest = nullptr;
    for (const auto& d : facts->rdma_devices) {
      if (d.pci_path.empty() || g.pci_path.empty() || d.soft) continue;
      const DmaEnd end = DmaEndOf(d);
      PathType t = ComputePathType(g.pci_path, g.numa_node, end.path, end.numa_node, is_bcm);
      facts->gpu_nic_paths.push_back({g.pci_address, d.name, PathTypeName(t), end.via});
      if (best == 0 || static_cast<int>(t) < best) {
        best = static_cast<int>(t);
        nearest = &d;
        g.nearest_nic = d.name;
        g.nearest_nic_via = end.via;
        g.path_type = PathTypeName(t);
      }
    }
    if (nearest == nullptr) continue;
    const DmaEnd end = DmaEndOf(*nearest);
    ReadAcsOnPath(root, end.path, &g, &facts->issues);
    ReadIommuOnPath(root, std::string(end.pci_address), &g, &facts->issues);
  }
}

}  // namespace rdmastack::node
