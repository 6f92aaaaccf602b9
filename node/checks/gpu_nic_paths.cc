#include "node/checks/gpu_nic_paths.h"

#include <algorithm>

#include "node/probe/pci_topology.h"

namespace rdmastack::node::checks {

std::vector<const GpuNicPath*> PathsFrom(const NodeFacts& facts, std::string_view gpu) {
  std::vector<const GpuNicPath*> out;
  for (const auto& p : facts.gpu_nic_paths) {
    if (p.gpu == gpu) out.push_back(&p);
  }
  auto rank = [](const GpuNicPath* p) {
    PathType t = PathType::kSys;
    return ParsePathType(p->path_type, &t) ? static_cast<int>(t) : 100;
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const GpuNicPath* a, const GpuNicPath* b) { return rank(a) < rank(b); });
  return out;
}

}  // namespace rdmastack::node::checks
