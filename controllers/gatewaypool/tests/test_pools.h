#pragma once
// The seed samples as typed pools, and RdmaNode statuses as an agent would leave them, for the
// gatewaypool tests.

#include <string>
#include <vector>

#include "controllers/gatewaypool/node_verdict.h"
#include "crds/types/types.h"
#include "lib/compat/compatibility.h"

namespace rdmastack::gatewaypool::testing {

// crds/samples/<file>'s GatewayPool, in namespace "storage" with uid and generation set.
crd::GatewayPool SamplePool(const std::string& file = "gatewaypool-kvcache.yaml");
compat::CompatibilityMatrix ShippedMatrix();

// Reporting=True and GatewayCapable=<capable> (reason `reason`), netdevs as "name ip/prefix"
// (an RDMA netdev unless the name starts with "eth").
crd::RdmaNodeStatus AgentStatus(bool capable, const std::vector<std::string>& netdevs,
                                const std::string& reason = "Verified");

}  // namespace rdmastack::gatewaypool::testing
