#pragma once
// What a pool asks of its nodes' hosts, against the admin's limits (controllers/common/
// host_policy.h): the tolerations of its privileged gateway pods, and the host ports the track it
// would start binds. Pure.

#include <optional>

#include "controllers/common/host_policy.h"
#include "crds/types/gatewaypool_api.h"
#include "crds/types/types.h"

namespace rdmastack::gatewaypool {

// The first refusal, or nullopt. `track` is the one the spec would start (none: no ports to
// check); tracks already running keep serving whatever this says.
std::optional<controllers::HostRefusal> CheckPoolHostPolicy(
    const controllers::TenancyPolicy& policy, const crd::GatewayPoolSpec& spec,
    const std::optional<Track>& track);

}  // namespace rdmastack::gatewaypool
