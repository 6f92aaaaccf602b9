#include "crds/types/status_rails.h"

#include <algorithm>

namespace rdmastack::crd {

std::vector<rails::RailNetwork> RailNetworksOf(const std::vector<PoolNetwork>& pool) {
  std::vector<rails::RailNetwork> out;
  for (const PoolNetwork& n : pool) out.push_back({n.rail.value_or(""), n.cidr});
  return out;
}

rails::RailPlan PlanStatusRails(const RdmaNodeStatus& node,
                                const std::vector<PoolNetwork>& networks,
                                std::string_view max_path_type) {
  std::vector<rails::RailNic> nics;
  for (const RdmaDeviceFacts& d : node.devices) {
    const bool up = std::any_of(d.ports.begin(), d.ports.end(), [](const RdmaPortFacts& p) {
      return p.state.value_or("") == "ACTIVE";
    });
    if (!up) continue;
    rails::RailNic nic{d.name, {}};
    for (const NetDevFacts& n : node.netdevs) {
      if (n.rdma_device.value_or("") != d.name) continue;
      nic.ipv4.insert(nic.ipv4.end(), n.ipv4.begin(), n.ipv4.end());
    }
    nics.push_back(std::move(nic));
  }
  std::vector<rails::RailGpu> gpus;
  for (const GpuFacts& g : node.gpus) {
    rails::RailGpu gpu{g.pci_address, {}};
    for (const GpuNicPathFacts& p : g.nic_paths) gpu.nics.push_back({p.nic, p.path_type});
    if (gpu.nics.empty() && g.nearest_nic && g.path_type) {
      gpu.nics.push_back({*g.nearest_nic, *g.path_type});
    }
    gpus.push_back(std::move(gpu));
  }
  return rails::PlanGpuRails(gpus, nics, RailNetworksOf(networks), max_path_type);
}

}  // namespace rdmastack::crd
