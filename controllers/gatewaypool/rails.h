#pragma once
// The rails a pool's gateways serve on each node, with each rail's ports on a track. A pool with
// rdma.interface or rdma.cidr has one unnamed rail on the track's own ports, rendered, published
// and verified as before rails existed. Pure.

#include <cstdint>
#include <string>
#include <vector>

#include "crds/types/gatewaypool_api.h"
#include "crds/types/types.h"

namespace rdmastack::gatewaypool {

// The label a multi-rail pool's EndpointSlices carry: the rail they publish.
inline constexpr char kRailLabel[] = "gatewaypool.rdmastack.io/rail";

struct Rail {
  std::string name;      // "" for a single-rail pool
  std::string selector;  // the interface name or IPv4 CIDR that picks the rail's address
  int index = 0;
  int32_t s3_port = 0;
  int32_t rdma_port = 0;
};

std::vector<Rail> RailsOf(const crd::GatewayPoolSpec& spec, const Track& track);

// "gateway" for the single rail, "gateway-<rail>" for a named one.
std::string GatewayContainerName(const Rail& rail);

}  // namespace rdmastack::gatewaypool
