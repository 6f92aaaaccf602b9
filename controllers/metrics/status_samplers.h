#pragma once
// Registers the status-derived metrics (pool, profile and node families) as samplers of the
// manager's registry. They read the shared informers' caches at scrape time: no extra watch, no
// API request, and every replica with synced caches serves them.

#include "operator/runtime/manager.h"

namespace rdmastack::statusmetrics {

struct StatusSamplerOptions {
  bool gateway_pools = true;
  bool client_profiles = true;
  bool rdma_nodes = true;
};

void AddStatusSamplers(runtime::Manager& manager, const StatusSamplerOptions& options);

}  // namespace rdmastack::statusmetrics
