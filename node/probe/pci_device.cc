#include "node/probe/pci_device.h"

#include <cstdio>

#include "node/probe/parsers.h"

namespace rdmastack::node {

std::string HexId(uint32_t id) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", id);
  return buf;
}

bool ReadPciFunction(const HostRoot& root, const std::string& bdf, const std::string& area,
                     PciFunction* out, std::vector<ProbeIssue>* issues) {
  const std::string dir = "sys/bus/pci/devices/" + bdf;
  out->bdf = bdf;
  auto path = root.Resolve(dir);
  if (!path.ok()) {
    issues->push_back({area, root.Path(dir), path.status().message()});
    return false;
  }
  out->path = *path;
  struct Field {
    const char* name;
    uint32_t* slot;
  };
  for (Field f : {Field{"vendor", &out->vendor}, Field{"device", &out->device},
                  Field{"class", &out->pci_class}}) {
    const std::string file = dir + "/" + f.name;
    auto text = root.ReadAttr(file);
    if (!text.ok()) {
      issues->push_back({area, root.Path(file), text.status().message()});
      return false;
    }
    auto value = ParseHex(*text);
    if (!value.ok() || *value > 0xffffff) {
      issues->push_back(
          {area, root.Path(file), value.ok() ? "value out of range" : value.status().message()});
      return false;
    }
    *f.slot = static_cast<uint32_t>(*value);
  }
  auto numa = root.ReadAttr(dir + "/numa_node");
  if (numa.ok()) {
    auto n = ParseDecimal(*numa);
    if (n.ok() && *n >= -1 && *n < 4096) {
      out->numa_node = static_cast<int>(*n);
    } else {
      issues->push_back({area, root.Path(dir + "/numa_node"),
                         n.ok() ? "NUMA node out of range" : n.status().message()});
    }
  }
  out->has_physfn = root.IsSymlink(dir + "/physfn");
  return true;
}

std::vector<std::string> ListPciAddresses(const HostRoot& root, std::vector<ProbeIssue>* issues) {
  std::vector<std::string> out;
  auto names = root.ListDir("sys/bus/pci/devices");
  if (!names.ok()) {
    if (names.status().code() != StatusCode::kNotFound) {
      issues->push_back({"pci", root.Path("sys/bus/pci/devices"), names.status().message()});
    }
    return out;
  }
  for (auto& n : *names) {
    if (IsPciAddress(n)) out.push_back(n);
  }
  return out;
}

std::vector<PciVendor> ListPciVendors(const HostRoot& root, std::vector<ProbeIssue>* issues) {
  std::vector<PciVendor> out;
  for (std::string& bdf : ListPciAddresses(root, issues)) {
    auto vendor = root.ReadAttr("sys/bus/pci/devices/" + bdf + "/vendor");
    out.push_back({std::move(bdf), vendor.ok() ? *vendor : "",
                   vendor.ok() ? "" : std::string(vendor.status().message())});
  }
  return out;
}

}  // namespace rdmastack::node
