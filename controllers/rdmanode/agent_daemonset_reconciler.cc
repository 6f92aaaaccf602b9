#include "controllers/rdmanode/agent_daemonset_reconciler.h"

#include <spdlog/spdlog.h>

#include "controllers/rdmanode/cached_resources.h"
#include "controllers/rdmanode/rdmanode_reconciler.h"
#include "operator/k8s/api_error.h"

namespace rdmastack::rdmanode {
AgentDaemonSetReconciler::AgentDaemonSetReconciler(k8s::Client& client,
                                                   AgentDaemonSetOptions options,
                                                   const runtime::Store& pools,
                                                   const runtime::Store& profiles,
                                                   const runtime::Store& daemonsets)
    : client_(client),
      options_(std::move(options)),
      pools_(pools),
      profiles_(profiles),
      daemonsets_(daemonsets) {}

StatusOr<runtime::Result> AgentDaemonSetReconciler::Reconcile(const runtime::Request&) {
  const auto desired = RenderAgentDaemonSet(options_, ParseCached<crd::GatewayPool>(pools_),
                                            ParseCached<crd::ClientProfile>(profiles_));
  const runtime::ObjectPtr existing =
      daemonsets_.Get(k8s::ObjectKey(options_.namespace_, kAgentName));
  if (!desired) {
    if (existing == nullptr) return runtime::Result{};
    k8s::DeleteOptions options;
    options.precondition_uid = std::string(existing->Uid());
    auto deleted =
        client_.Delete(k8s::kinds::DaemonSet(), options_.namespace_, kAgentName, options);
    if (!deleted.ok() && !k8s::IsNotFound(deleted.status()))
      return deleted.status().WithContext("delete the agent DaemonSet");
    written_.Forget(kAgentName);
    spdlog::info("agent DaemonSet {}/{} deleted: no GatewayPool or ClientProfile",
                 options_.namespace_, kAgentName);
    return runtime::Result{};
  }
  const std::string hash = *desired->Annotation(kAppliedHashAnnotation);
  if (existing != nullptr) {
    if (existing->Annotation(kAppliedHashAnnotation) == hash) return runtime::Result{};
    if (written_.Pending(kAgentName, hash, existing->ResourceVersion())) return runtime::Result{};
  }
  k8s::PatchOptions options;
  options.field_manager = kFieldManager;
  options.force = true;
  auto applied = client_.Apply(k8s::kinds::DaemonSet(), *desired, options);
  if (!applied.ok()) return applied.status().WithContext("apply the agent DaemonSet");
  written_.Remember(kAgentName, hash, std::string(applied->ResourceVersion()));
  spdlog::info("agent DaemonSet {}/{} applied (hash {})", options_.namespace_, kAgentName,
               hash.substr(0, 12));
  return runtime::Result{};
}

}  // namespace rdmastack::rdmanode
