#pragma once
// Whether a node a GatewayPool selects can run the pool's gateway, from what its agent reported
// (the RdmaNode) and what the pool asks of it (rdma.interface or rdma.cidr). Pure.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crds/types/types.h"

namespace rdmastack::gatewaypool {

struct NodeInput {
  std::string name;
  crd::StringMap labels;
  const crd::RdmaNodeStatus* rdma = nullptr;  // null: no RdmaNode (or no status) yet
};

// One rail of a multi-rail pool on a node that verified: its address, and whether its RDMA port
// is up as the agent last reported (a port the report says nothing of counts as up).
struct RailVerdict {
  std::string name;
  std::string address;
  std::string network;  // address's network, "10.10.0.0/16"; "" when the agent gave no prefix
  bool up = true;
  std::string down;  // when not up: the port and its state
};

struct NodeVerdict {
  bool verified = false;
  // When the node is selected but not verified: a CamelCase reason and what to do.
  std::string reason;
  std::string message;
  // The node's RDMA address for the pool (the one IPv4 that rdma.interface/cidr picks; a
  // multi-rail pool's first rail's).
  std::string rdma_address;
  std::string rdma_network;  // rdma_address's network ("10.10.0.0/24"); "" without a prefix
  std::string netdev;        // the netdev that holds rdma_address
  // Multi-rail pools: every rail, in the spec's order. A rail that is down degrades the node
  // (RailDown) without failing it: the agent's GatewayCapable needs one RDMA address up.
  std::vector<RailVerdict> rails;
  bool RailsDown() const;
};

// Whether `rail` serves on the node: a multi-rail verdict's rail that is up; every rail of a
// verdict without rails (a single-rail pool, or one its agent has not reported on).
bool RailServes(const NodeVerdict& v, std::string_view rail);

// Verified when the agent reports the node gateway-capable and rdma.interface/cidr picks exactly
// one IPv4 on an RDMA netdev. Reasons: AgentNotReporting, NotEvaluated, the agent's own
// GatewayCapable reason (NoRdmaDevice, PortDown, ...), InterfaceNotFound, InterfaceNotRdma,
// NoAddressInCidr, AmbiguousRdmaAddress. With rdma.rails, every rail must pick its one address (the
// reasons then name the rail); a rail whose port is down leaves the node verified, with the rail
// marked down.
NodeVerdict VerifyNode(const crd::GatewayPoolSpec& spec, const NodeInput& node);

}  // namespace rdmastack::gatewaypool
