#include "node/probe/ip_lookup.h"

namespace rdmastack::node {

StatusOr<Ipv4PortBinding> FindRdmaPortForIpv4(const NodeFacts& facts, std::string_view ipv4) {
  for (const auto& n : facts.netdevs) {
    for (const auto& b : n.ipv4) {
      if (b.address != ipv4) continue;
      if (n.rdma_device.empty()) {
        return FailedPreconditionError(std::string(ipv4) + " is on " + n.name +
                                       ", which is not backed by an RDMA port");
      }
      Ipv4PortBinding out{n.name, n.rdma_device, n.rdma_port, b.gid_index, "", false};
      if (const RdmaDevice* d = facts.FindDevice(n.rdma_device)) {
        for (const auto& p : d->ports) {
          if (p.number != n.rdma_port) continue;
          out.link_layer = p.link_layer;
          out.port_up = p.Up();
        }
      }
      if (b.gid_index < 0) {
        return FailedPreconditionError(
            std::string(ipv4) + " on " + n.name + " has no usable GID on " + n.rdma_device +
            " port " + std::to_string(n.rdma_port) +
            (out.link_layer == "Ethernet" ? " (no RoCE v2 GID for it)" : ""));
      }
      return out;
    }
  }
  return NotFoundError("no interface has address " + std::string(ipv4));
}

}  // namespace rdmastack::node
