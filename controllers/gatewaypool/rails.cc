#include "controllers/gatewaypool/rails.h"

#include "controllers/gatewaypool/gateway_daemonset.h"

namespace rdmastack::gatewaypool {

std::vector<Rail> RailsOf(const crd::GatewayPoolSpec& spec, const Track& track) {
  if (spec.rdma.rails.empty()) {
    return {{"", spec.rdma.interface.value_or(spec.rdma.cidr.value_or("")), 0, track.s3_port,
             track.rdma_port}};
  }
  std::vector<Rail> out;
  for (size_t i = 0; i < spec.rdma.rails.size(); ++i) {
    const crd::RdmaRail& r = spec.rdma.rails[i];
    const int32_t offset = static_cast<int32_t>(i) * crd::kRailPortStride;
    out.push_back({r.name, r.interface.value_or(r.cidr.value_or("")), static_cast<int>(i),
                   track.s3_port + offset, track.rdma_port + offset});
  }
  return out;
}

std::string GatewayContainerName(const Rail& rail) {
  return rail.name.empty() ? std::string(kGatewayContainer)
                           : std::string(kGatewayContainer) + "-" + rail.name;
}

}  // namespace rdmastack::gatewaypool
