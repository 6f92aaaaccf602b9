#pragma once
// What a storage team watches of each GatewayPool, computed from its status at scrape time
// (docs/operations.md "Metrics" has the table).

#include <vector>

#include "crds/types/types.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::statusmetrics {

std::vector<runtime::SampledFamily> PoolMetrics(const std::vector<crd::GatewayPool>& pools);

}  // namespace rdmastack::statusmetrics
