#include "node/probe/data_direct_probe.h"

#include <string>
#include <string_view>

#include "node/probe/parsers.h"
#include "node/probe/pci_device.h"
#include "node/probe/pci_topology.h"

namespace rdmastack::node {
namespace {

constexpr char kArea[] = "rdma";

bool IsDataDirect(const PciFunction& fn) {
  return fn.vendor == kDataDirectVendor && fn.device == kDataDirectDevice;
}

std::string DriverOf(const HostRoot& root, const std::string& bdf) {
  auto link = root.ReadLink("sys/bus/pci/devices/" + bdf + "/driver");
  if (!link.ok()) return "";
  const size_t slash = link->rfind('/');
  return slash == std::string::npos ? *link : link->substr(slash + 1);
}

// Why `answer` cannot be taken as a Data Direct function's path, or "" when it can; `fn` is read.
std::string Refuse(const HostRoot& root, std::string_view answer, PciFunction* fn) {
  if (!answer.starts_with("/devices/") || answer.size() > 1024) return "not a sysfs device path";
  for (std::string_view part : SplitNonEmpty(answer, '/')) {
    if (part == "." || part == "..") return "not a plain sysfs device path";
  }
  const std::string bdf(answer.substr(answer.rfind('/') + 1));
  std::vector<ProbeIssue> read_issues;
  if (!ReadPciFunction(root, bdf, kArea, fn, &read_issues))
    return read_issues.empty() ? "not a PCI function" : read_issues.front().message;
  if (fn->path != "sys" + std::string(answer)) return "not where sysfs has PCI function " + bdf;
  if (!IsDataDirect(*fn)) return "PCI function " + bdf + " is not a Data Direct function";
  return "";
}

}  // namespace

std::vector<DataDirectFunction> ProbeDataDirectFunctions(const HostRoot& root,
                                                         const std::vector<PciVendor>& functions) {
  std::vector<DataDirectFunction> out;
  for (const PciVendor& f : functions) {
    // The vendor rules out nearly every function of a host.
    if (f.vendor != HexId(kDataDirectVendor)) continue;
    auto device = root.ReadAttr("sys/bus/pci/devices/" + f.bdf + "/device");
    if (!device.ok() || *device != HexId(kDataDirectDevice)) continue;
    out.push_back({f.bdf, DriverOf(root, f.bdf)});
  }
  return out;
}

void ResolveDataDirect(const HostRoot& root, std::vector<RdmaDevice>* devices,
                       std::vector<ProbeIssue>* issues) {
  for (RdmaDevice& d : *devices) {
    if (d.data_direct != Tristate::kYes) continue;
    const std::string answer = d.data_direct_path;
    PciFunction fn;
    const std::string refused = Refuse(root, answer, &fn);
    if (!refused.empty()) {
      d.data_direct = Tristate::kUnknown;
      d.data_direct_path.clear();
      d.data_direct_detail = "the provider named " + answer.substr(0, 256) + ": " + refused;
      issues->push_back({kArea, d.name, d.data_direct_detail});
      continue;
    }
    d.data_direct_pci = fn.bdf;
    d.data_direct_path = fn.path;
    d.pcie_root = PcieRoot(fn.path);  // the NIC's DMA to GPU memory enters PCIe here
    d.data_direct_numa_node = fn.numa_node;
  }
}

}  // namespace rdmastack::node
