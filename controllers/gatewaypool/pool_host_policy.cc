#include "controllers/gatewaypool/pool_host_policy.h"

namespace rdmastack::gatewaypool {

std::optional<controllers::HostRefusal> CheckPoolHostPolicy(
    const controllers::TenancyPolicy& policy, const crd::GatewayPoolSpec& spec,
    const std::optional<Track>& track) {
  if (auto refused = controllers::CheckTolerations(policy, "tolerations", spec.tolerations))
    return refused;
  if (!track) return std::nullopt;
  // The effective ports (the spec's or the per-major defaults): a default moved out of the range
  // is refused as well, with the field that would change it.
  if (auto refused = controllers::CheckHostPort(policy, "s3.port", track->s3_port)) return refused;
  return controllers::CheckHostPort(policy, "rdma.port", track->rdma_port);
}

}  // namespace rdmastack::gatewaypool
