#include "node/probe/pci_topology.h"

#include <algorithm>
#include <cctype>

#include "base/pci_address.h"
#include "node/probe/parsers.h"
#include "node/probe/pci_device.h"

namespace rdmastack::node {

const char* PathTypeName(PathType t) {
  switch (t) {
    case PathType::kPix: return "PIX";
    case PathType::kPxb: return "PXB";
    case PathType::kPhb: return "PHB";
    case PathType::kSys: return "SYS";
  }
  return "SYS";
}

bool ParsePathType(std::string_view text, PathType* out) {
  std::string up(text);
  std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return std::toupper(c); });
  for (PathType t : {PathType::kPix, PathType::kPxb, PathType::kPhb, PathType::kSys}) {
    if (up == PathTypeName(t)) {
      *out = t;
      return true;
    }
  }
  return false;
}

std::vector<std::string> NcclAncestors(std::string_view sysfs_path, int numa_node,
                                       const BcmSwitchTest& is_bcm) {
  auto comps = SplitNonEmpty(sysfs_path, '/');
  std::vector<std::string> out;
  int i = static_cast<int>(comps.size()) - 1;
  int stripped = 0;
  while (i > 0) {
    --i;
    ++stripped;
    if (!IsPciAddress(comps[i])) break;
    if (stripped == 2) {
      out.emplace_back(comps[i]);
      stripped = 0;
    }
  }
  if (is_bcm) {
    // ncclTopoFlattenBcmSwitches: drop a Broadcom switch whose parent switch is Broadcom too.
    std::vector<std::string> flat;
    for (size_t i = 0; i < out.size(); ++i) {
      if (i + 1 < out.size() && is_bcm(out[i]) && is_bcm(out[i + 1])) continue;
      flat.push_back(out[i]);
    }
    out.swap(flat);
  }
  out.push_back("CPU:" + std::to_string(numa_node));
  return out;
}

PathType ComputePathType(std::string_view gpu_path, int gpu_numa, std::string_view nic_path,
                         int nic_numa, const BcmSwitchTest& is_bcm) {
  auto a = NcclAncestors(gpu_path, gpu_numa, is_bcm);
  auto b = NcclAncestors(nic_path, nic_numa, is_bcm);
  const bool a_switch = a.size() > 1;
  if (a_switch && b.size() > 1 && a.front() == b.front()) return PathType::kPix;
  for (size_t i = 0; i + 1 < a.size(); ++i) {
    if (std::find(b.begin(), b.end() - 1, a[i]) != b.end() - 1) return PathType::kPxb;
  }
  if (a.back() == b.back()) return PathType::kPhb;
  return PathType::kSys;
}

std::vector<std::string> BridgesBetween(std::string_view a_path, std::string_view b_path) {
  const auto a = SplitNonEmpty(a_path, '/');
  const auto b = SplitNonEmpty(b_path, '/');
  // The PCI part of each path: the functions after "sys/devices/pciDDDD:BB".
  auto first_function = [](const auto& comps) {
    size_t i = 0;
    while (i < comps.size() && !IsPciAddress(comps[i])) ++i;
    return i;
  };
  const size_t a0 = first_function(a), b0 = first_function(b);
  if (a0 >= a.size() || b0 >= b.size() || a0 != b0) return {};
  for (size_t i = 0; i < a0; ++i) {
    if (a[i] != b[i]) return {};  // another host bridge
  }
  size_t common = a0;
  while (common + 1 < a.size() && common + 1 < b.size() && a[common] == b[common]) ++common;
  if (common == a0) return {};  // no bridge in common: different root ports
  std::vector<std::string> out;
  for (size_t i = common; i + 1 < a.size(); ++i) out.emplace_back(a[i]);
  for (size_t i = common; i + 1 < b.size(); ++i) out.emplace_back(b[i]);
  return out;
}

std::string PcieRoot(std::string_view sysfs_path) {
  for (std::string_view comp : SplitNonEmpty(sysfs_path, '/')) {
    if (IsPcieRoot(comp)) return std::string(comp);
  }
  return "";
}

}  // namespace rdmastack::node
