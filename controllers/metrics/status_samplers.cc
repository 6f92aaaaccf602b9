#include "controllers/metrics/status_samplers.h"

#include <vector>

#include "controllers/common/cache_transforms.h"
#include "controllers/metrics/node_metrics.h"
#include "controllers/metrics/pool_metrics.h"
#include "controllers/metrics/profile_metrics.h"
#include "crds/types/json.h"
#include "crds/types/kinds.h"

namespace rdmastack::statusmetrics {
namespace {

// Every cached object of the kind that parses; one that does not is skipped here (its
// reconciler reports it as a condition).
template <typename T>
std::vector<T> ParseAll(const runtime::Store& store) {
  std::vector<T> out;
  for (const runtime::ObjectPtr& object : store.List()) {
    if (auto parsed = crd::ParseResource<T>(object->value()); parsed.ok()) {
      out.push_back(std::move(*parsed));
    }
  }
  return out;
}

template <typename T>
void AddSampler(runtime::Manager& manager, const k8s::ResourceType& type,
                std::vector<runtime::SampledFamily> (*metrics)(const std::vector<T>&)) {
  const runtime::Store& store = controllers::CachedInformer(manager, type).store();
  manager.metrics().AddSampler([&store, metrics] { return metrics(ParseAll<T>(store)); });
}

}  // namespace

void AddStatusSamplers(runtime::Manager& manager, const StatusSamplerOptions& options) {
  if (options.gateway_pools) AddSampler(manager, crd::kinds::GatewayPool(), &PoolMetrics);
  if (options.client_profiles) AddSampler(manager, crd::kinds::ClientProfile(), &ProfileMetrics);
  if (options.rdma_nodes) AddSampler(manager, crd::kinds::RdmaNode(), &NodeMetrics);
}

}  // namespace rdmastack::statusmetrics
