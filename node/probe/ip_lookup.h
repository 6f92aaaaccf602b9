#pragma once
// "Is this IPv4 on an RDMA port that is up?" over probed facts (pure; used by the gateway
// launcher and by the agent's gateway checks).

#include <string>
#include <string_view>

#include "base/status.h"
#include "node/probe/facts.h"

namespace rdmastack::node {

struct Ipv4PortBinding {
  std::string netdev;       // interface that owns the address (bond0, ens1f0np0.100, ib0)
  std::string rdma_device;  // mlx5_0
  int port = 0;
  int gid_index = -1;      // GID rdma_cm would use: 0 on IB, the RoCE v2 IPv4 GID on RoCE
  std::string link_layer;  // InfiniBand | Ethernet
  bool port_up = false;    // state ACTIVE and phys_state LinkUp
};

// NotFound: no interface has the address. FailedPrecondition: the interface is not backed by an
// RDMA port, or (RoCE) no RoCE v2 GID carries the address. The message says which.
StatusOr<Ipv4PortBinding> FindRdmaPortForIpv4(const NodeFacts& facts, std::string_view ipv4);

}  // namespace rdmastack::node
