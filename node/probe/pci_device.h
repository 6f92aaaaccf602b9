#pragma once
// Reads the identity of one PCI function from /sys/bus/pci/devices/<bdf>.

#include <string>
#include <vector>

#include "base/pci_address.h"
#include "node/probe/facts.h"
#include "node/probe/host_root.h"

namespace rdmastack::node {

struct PciFunction {
  std::string bdf;   // 0000:3b:00.0
  std::string path;  // resolved root-relative sysfs path (sys/devices/pci0000:3a/.../0000:3b:00.0)
  uint32_t vendor = 0;
  uint32_t device = 0;
  uint32_t pci_class = 0;
  int numa_node = -1;
  bool has_physfn = false;  // SR-IOV VF on the host that owns the PF
};

std::string HexId(uint32_t id);  // 0x15b3

// Reads vendor/device/class/numa_node and resolves the path. Problems are appended to `issues`
// (area as given); returns false when the function cannot be identified at all.
bool ReadPciFunction(const HostRoot& root, const std::string& bdf, const std::string& area,
                     PciFunction* out, std::vector<ProbeIssue>* issues);

// All PCI addresses listed under sys/bus/pci/devices.
std::vector<std::string> ListPciAddresses(const HostRoot& root, std::vector<ProbeIssue>* issues);

// Each listed PCI function with its vendor file as read ("0x10de"), or why it could not be read.
// One scan per probe serves every prober that picks functions by vendor (GPUs, Data Direct).
struct PciVendor {
  std::string bdf;
  std::string vendor;  // "" when unreadable
  std::string error;   // why it was unreadable
};
std::vector<PciVendor> ListPciVendors(const HostRoot& root, std::vector<ProbeIssue>* issues);

}  // namespace rdmastack::node
