#include "controllers/gatewaypool/pool_host_policy.h"

#include <string>

#include "controllers/gatewaypool/rails.h"

namespace rdmastack::gatewaypool {

std::optional<controllers::HostRefusal> CheckPoolHostPolicy(
    const controllers::TenancyPolicy& policy, const crd::GatewayPoolSpec& spec,
    const std::optional<Track>& track) {
  if (auto refused = controllers::CheckTolerations(policy, "tolerations", spec.tolerations))
    return refused;
  if (!track) return std::nullopt;
  // The effective ports (the spec's or the per-major defaults): a default moved out of the range
  // is refused as well, with the field that would change it. Every rail's: rail i binds the
  // pool's ports plus 100 times i.
  for (const Rail& rail : RailsOf(spec, *track)) {
    const std::string of = rail.index == 0
                               ? ""
                               : " + " + std::to_string(rail.index * crd::kRailPortStride) +
                                     " (rail " + rail.name + ")";
    if (auto refused = controllers::CheckHostPort(policy, "s3.port" + of, rail.s3_port))
      return refused;
    if (auto refused = controllers::CheckHostPort(policy, "rdma.port" + of, rail.rdma_port))
      return refused;
  }
  return std::nullopt;
}

}  // namespace rdmastack::gatewaypool
