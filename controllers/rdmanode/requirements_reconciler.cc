#include "controllers/rdmanode/requirements_reconciler.h"

#include <spdlog/spdlog.h>

#include "controllers/common/node_label_keys.h"
#include "controllers/rdmanode/cached_resources.h"
#include "controllers/rdmanode/requirements.h"

namespace rdmastack::rdmanode {
RequirementsReconciler::RequirementsReconciler(const runtime::Store& nodes,
                                               const runtime::Store& pools,
                                               const runtime::Store& profiles,
                                               controllers::NodeLabelCoverage& node_labels,
                                               agenthub::RequirementsPublisher& publisher)
    : nodes_(nodes),
      pools_(pools),
      profiles_(profiles),
      node_labels_(node_labels),
      publisher_(publisher) {}

StatusOr<runtime::Result> RequirementsReconciler::Reconcile(const runtime::Request& request) {
  const std::string& name = request.name;
  const runtime::ObjectPtr node = nodes_.Get(name);
  std::lock_guard lock(mu_);
  if (node == nullptr) {
    if (published_.erase(name) > 0) publisher_.Forget(name);
    return runtime::Result{};
  }
  // A selector naming a label key the Node cache does not hold yet would match no node: publish
  // nothing until the re-list that adds the key is in (node_label_filter.h).
  std::set<std::string> keys = controllers::LabelKeysToKeep(pools_.List());
  keys.merge(controllers::LabelKeysToKeep(profiles_.List()));
  if (!node_labels_.Covers(keys)) return runtime::Result{controllers::kNodeCacheWait};
  const agent::v1::Requirements req =
      ComputeRequirements(node->Labels(), ParseCached<crd::GatewayPool>(pools_),
                          ParseCached<crd::ClientProfile>(profiles_));
  std::string bytes;
  req.SerializeToString(&bytes);
  auto it = published_.find(name);
  // A node nothing has ever selected needs no message: the hub's default is "nothing asked".
  if (it == published_.end() ? bytes.empty() : it->second == bytes) return runtime::Result{};
  published_[name] = bytes;
  publisher_.Publish(name, req);
  spdlog::info("node {}: requirements gateway={} clients={}", name, req.gateway(),
               req.clients_size());
  return runtime::Result{};
}

void LatestRequirements::Publish(const std::string& node_name,
                                 const agent::v1::Requirements& requirements) {
  std::lock_guard lock(mu_);
  latest_[node_name] = requirements;
  ++publishes_;
}

void LatestRequirements::Forget(const std::string& node_name) {
  std::lock_guard lock(mu_);
  latest_.erase(node_name);
}

std::optional<agent::v1::Requirements> LatestRequirements::Get(const std::string& node_name) const {
  std::lock_guard lock(mu_);
  auto it = latest_.find(node_name);
  if (it == latest_.end()) return std::nullopt;
  return it->second;
}

int LatestRequirements::publishes() const {
  std::lock_guard lock(mu_);
  return publishes_;
}

}  // namespace rdmastack::rdmanode
