#pragma once
// Whether a node a GatewayPool selects can run the pool's gateway, from what its agent reported
// (the RdmaNode) and what the pool asks of it (rdma.interface or rdma.cidr). Pure.

#include <optional>
#include <string>

#include "crds/types/types.h"

namespace rdmastack::gatewaypool {

struct NodeInput {
  std::string name;
  crd::StringMap labels;
  const crd::RdmaNodeStatus* rdma = nullptr;  // null: no RdmaNode (or no status) yet
};

struct NodeVerdict {
  bool verified = false;
  // When the node is selected but not verified: a CamelCase reason and what to do.
  std::string reason;
  std::string message;
  // The node's RDMA address for the pool (the one IPv4 that rdma.interface/cidr picks).
  std::string rdma_address;
};

// Verified when the agent reports the node gateway-capable and rdma.interface/cidr picks exactly
// one IPv4 on an RDMA netdev. Reasons: AgentNotReporting, NotEvaluated, the agent's own
// GatewayCapable reason (NoRdmaDevice, PortDown, ...), InterfaceNotFound, InterfaceNotRdma,
// NoAddressInCidr, AmbiguousRdmaAddress.
NodeVerdict VerifyNode(const crd::GatewayPoolSpec& spec, const NodeInput& node);

}  // namespace rdmastack::gatewaypool
