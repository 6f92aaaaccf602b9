#include "node/probe/pci_topology.h"

#include <algorithm>
#include <cctype>

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

}  // namespace rdmastack::node
