#pragma once
// What a storage team watches of each ClientProfile, computed from its status at scrape time.

#include <vector>

#include "crds/types/types.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::statusmetrics {

std::vector<runtime::SampledFamily> ProfileMetrics(const std::vector<crd::ClientProfile>& profiles);

}  // namespace rdmastack::statusmetrics
