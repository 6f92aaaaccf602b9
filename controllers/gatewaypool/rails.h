#pragma once
// The rails a pool's gateways serve on each node, with each rail's ports on a track. A pool with
// rdma.interface or rdma.cidr has one unnamed rail on the track's own ports, rendered, published
// and verified as before rails existed. Pure.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "crds/types/gatewaypool_api.h"
#include "crds/types/types.h"

namespace rdmastack::gatewaypool {

struct Rail {
  std::string name;      // "" for a single-rail pool
  std::string selector;  // the interface name or IPv4 CIDR that picks the rail's address
  int index = 0;
  int32_t s3_port = 0;
  int32_t rdma_port = 0;
};

std::vector<Rail> RailsOf(const crd::GatewayPoolSpec& spec, const Track& track);

// Every port `track` binds on a node: each rail's S3 and RDMA port.
std::set<int32_t> TrackPorts(const crd::GatewayPoolSpec& spec, const Track& track);

// What the schema cannot check of a track's rails (RailsOf(spec, ...); their ports follow the
// defaulted ones): every port within 1..65535, no port bound twice on a node (a rail's S3 port is
// another's RDMA port when the two differ by a multiple of 100), no two rails on one address
// selector; and, for a spec stored before the schema's pattern or ratcheted past it, each rail
// name a DNS label of 1-15 characters. The operator renders nothing for such a spec
// (InvalidSpec), so what serves stays.
Status CheckRails(const crd::GatewayPoolSpec& spec, const std::vector<Rail>& rails);

// "gateway" for the single rail, "gateway-<rail>" for a named one.
std::string GatewayContainerName(const Rail& rail);

}  // namespace rdmastack::gatewaypool
