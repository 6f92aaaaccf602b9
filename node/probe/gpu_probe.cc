#include "node/probe/gpu_probe.h"

#include "node/probe/parsers.h"
#include "node/probe/pci_device.h"
#include "node/probe/pci_ids.h"
#include "node/probe/pci_topology.h"

namespace rdmastack::node {
namespace {

constexpr char kGpuArea[] = "gpu";

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

}  // namespace

std::vector<Gpu> ProbeGpus(const HostRoot& root, std::vector<ProbeIssue>* issues) {
  std::vector<Gpu> out;
  for (const auto& bdf : ListPciAddresses(root, issues)) {
    // Cheap vendor filter first: most functions are not NVIDIA's.
    const std::string vendor_file = "sys/bus/pci/devices/" + bdf + "/vendor";
    auto vendor = root.ReadAttr(vendor_file);
    if (!vendor.ok()) {
      issues->push_back({kGpuArea, root.Path(vendor_file),
                         vendor.status().message() + " (cannot tell if it is a GPU)"});
      continue;
    }
    if (*vendor != "0x10de") continue;
    PciFunction fn;
    if (!ReadPciFunction(root, bdf, kGpuArea, &fn, issues)) continue;
    if (!IsGpuClass(fn.pci_class)) continue;
    Gpu g;
    g.pci_address = bdf;
    g.pci_path = fn.path;
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
    for (const auto& d : facts->rdma_devices) {
      if (d.pci_path.empty() || g.pci_path.empty() || d.soft) continue;
      PathType t = ComputePathType(g.pci_path, g.numa_node, d.pci_path, d.numa_node, is_bcm);
      facts->gpu_nic_paths.push_back({g.pci_address, d.name, PathTypeName(t)});
      if (best == 0 || static_cast<int>(t) < best) {
        best = static_cast<int>(t);
        g.nearest_nic = d.name;
        g.path_type = PathTypeName(t);
      }
    }
  }
}

}  // namespace rdmastack::node
