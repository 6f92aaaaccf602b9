#pragma once
// Keeps the agent DaemonSet (agent_daemonset.h) as rendered from all GatewayPools and
// ClientProfiles: applies it (server-side apply) when the rendering's hash differs from the one
// the cached DaemonSet carries, deletes it when nothing selects any node.

#include "controllers/common/write_memo.h"
#include "controllers/rdmanode/agent_daemonset.h"
#include "operator/k8s/client.h"
#include "operator/runtime/reconciler.h"
#include "operator/runtime/store.h"

namespace rdmastack::rdmanode {

// The single key this controller reconciles.
inline constexpr char kAgentDaemonSetKey[] = "agent-daemonset";

class AgentDaemonSetReconciler final : public runtime::Reconciler {
 public:
  AgentDaemonSetReconciler(k8s::Client& client, AgentDaemonSetOptions options,
                           const runtime::Store& pools, const runtime::Store& profiles,
                           const runtime::Store& daemonsets);
  StatusOr<runtime::Result> Reconcile(const runtime::Request& request) override;

 private:
  k8s::Client& client_;
  const AgentDaemonSetOptions options_;
  const runtime::Store& pools_;
  const runtime::Store& profiles_;
  const runtime::Store& daemonsets_;
  controllers::WriteMemo<std::string> written_;  // the last applied hash
};

}  // namespace rdmastack::rdmanode
