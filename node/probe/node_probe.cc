#include "node/probe/node_probe.h"

#include "node/probe/data_direct_probe.h"
#include "node/probe/gpu_probe.h"
#include "node/probe/host_root.h"
#include "node/probe/ip_source.h"
#include "node/probe/module_files.h"
#include "node/probe/netdev_probe.h"
#include "node/probe/rdma_probe.h"
#include "node/probe/system_probe.h"

namespace rdmastack::node {
namespace {

std::vector<InterfaceAddress> LoadAddresses(const ProbeOptions& options, NodeFacts* facts) {
  auto addrs = options.ips_file.empty() ? LiveInterfaceAddresses() : ReadIpsFile(options.ips_file);
  facts->ips_source = options.ips_file.empty() ? "getifaddrs" : "file";
  if (!addrs.ok()) {
    facts->issues.push_back({"ips", options.ips_file.empty() ? "getifaddrs" : options.ips_file,
                             addrs.status().message()});
    return {};
  }
  return *std::move(addrs);
}

// RoCE ports without a verbs answer: the kernel derives active_mtu from the netdev MTU.
void EstimateRoceMtu(NodeFacts* facts) {
  for (auto& d : facts->rdma_devices) {
    for (auto& p : d.ports) {
      if (p.active_mtu > 0 || !p.IsEthernet()) continue;
      for (const auto& n : facts->netdevs) {
        if (n.rdma_device == d.name && n.rdma_port == p.number && n.kind != "vlan" && n.mtu > 0) {
          p.active_mtu = RoceMtuFromNetdevMtu(n.mtu);
          p.active_mtu_source = "netdev";
          break;
        }
      }
    }
  }
}

}  // namespace

NodeFacts ProbeNode(const ProbeOptions& options) {
  HostRoot root(options.root);
  NodeFacts facts;
  facts.root = root.root();
  facts.kernel = ProbeKernel(root, &facts.issues);
  facts.drivers = ProbeDrivers(root, &facts.issues);
  facts.drivers.nvidia_peermem_installed =
      ProbeModuleInstalled(root, facts.kernel, facts.drivers, "nvidia_peermem", &facts.issues);
  facts.drivers.module_files = ProbeModuleFiles(root, facts.kernel, facts.drivers, &facts.issues);
  facts.rdma_devices = ProbeRdmaDevices(root, &facts.issues);
  const std::vector<PciVendor> pci = ListPciVendors(root, &facts.issues);
  facts.gpus = ProbeGpus(root, pci, &facts.issues);
  std::unique_ptr<DeviceProber> none;
  DeviceProber* prober = options.device_prober;
  if (prober == nullptr) {
    none = MakeNullDeviceProber();
    prober = none.get();
  }
  for (auto& d : facts.rdma_devices) {
    if (!d.soft) prober->ProbeRdmaDevice(&d, &facts.issues);
  }
  ResolveDataDirect(root, &facts.rdma_devices, &facts.issues);
  facts.data_direct_functions = ProbeDataDirectFunctions(root, pci);
  prober->PrepareGpus(facts.gpus, &facts.issues);
  for (auto& g : facts.gpus) prober->ProbeGpu(&g, &facts.issues);
  facts.device_probe_source = prober->Source();
  facts.netdevs =
      ProbeNetDevs(root, LoadAddresses(options, &facts), facts.rdma_devices, &facts.issues);
  EstimateRoceMtu(&facts);
  ComputeGpuNicPaths(root, &facts);
  return facts;
}

}  // namespace rdmastack::node
