#pragma once
// Picks the node's RDMA IPv4 from an interface name (bond0) or a CIDR (100.64.0.0/16), then
// confirms, through the node agent's probe library, that the address sits on an RDMA device port
// that is up. vgwrdma would otherwise start, bind rdma_cm to a dead or non-RDMA address, and only
// fail on the first client transfer.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "node/probe/facts.h"

namespace rdmastack::gateway {

struct RdmaSelector {
  std::string text;       // as given
  std::string interface;  // set when it names an interface
  uint32_t network = 0;   // host order; set when it is a CIDR
  int prefix = -1;        // -1 when it names an interface
  bool IsCidr() const { return prefix >= 0; }
};

StatusOr<RdmaSelector> ParseRdmaSelector(const std::string& text);

struct RdmaAddress {
  std::string netdev;
  std::string ipv4;
  std::string rdma_device;
  int port = 0;
  std::string link_layer;
  // Set only when the port is not up and that was allowed: what is wrong with it.
  std::string port_down;
};

// Pure: chooses exactly one IPv4 among the probed netdevs (ambiguity is an error, not a guess)
// and requires its RDMA port to be up, unless `allow_port_down` (a rail of a multi-rail pool).
StatusOr<RdmaAddress> ResolveRdmaAddress(const RdmaSelector& selector, const node::NodeFacts& facts,
                                         bool allow_port_down = false);

// Probes the node below host_root (IPv4 from ips_file when set, else getifaddrs) and resolves.
StatusOr<RdmaAddress> ProbeRdmaAddress(const RdmaSelector& selector, const std::string& host_root,
                                       const std::string& ips_file, bool allow_port_down = false);

}  // namespace rdmastack::gateway
