#pragma once
// Per node: the RdmaNode's conditions (Reporting first of all) and the agent's verdict per role,
// computed from the RdmaNodes at scrape time. One series per node and role: bounded by the nodes.

#include <vector>

#include "crds/types/types.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::statusmetrics {

std::vector<runtime::SampledFamily> NodeMetrics(const std::vector<crd::RdmaNode>& nodes);

}  // namespace rdmastack::statusmetrics
