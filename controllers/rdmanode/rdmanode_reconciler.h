#pragma once
// Keeps one RdmaNode per Node whose agent has spoken (owned by the Node, so the garbage collector
// removes it with the Node), its status computed from the agent state store. Writes with
// server-side apply, the status fitted to the CRD schema (controllers/common/status_writer.h),
// only when the content differs from the informer cache.

#include <string>

#include "controllers/common/render.h"
#include "controllers/common/status_fit_log.h"
#include "controllers/common/write_memo.h"
#include "controllers/rdmanode/agent_state_store.h"
#include "crds/types/types.h"
#include "operator/k8s/client.h"
#include "operator/runtime/reconciler.h"
#include "operator/runtime/store.h"

namespace rdmastack::rdmanode {

using controllers::kFieldManager;

class RdmaNodeReconciler final : public runtime::Reconciler {
 public:
  RdmaNodeReconciler(k8s::Client& client, const runtime::Store& nodes,
                     const runtime::Store& rdmanodes, AgentStateStore& agents, Clock& clock);
  StatusOr<runtime::Result> Reconcile(const runtime::Request& request) override;

 private:
  // The cached RdmaNode, parsed; nullopt when there is none or it does not parse.
  static std::optional<crd::RdmaNode> ReadCurrent(const std::string& name,
                                                  const runtime::ObjectPtr& existing);
  // Applies `status` (fitted to the schema's limits) unless it is what the server holds.
  Status WriteStatus(const std::string& name, const crd::RdmaNodeStatus* previous,
                     crd::RdmaNodeStatus status);
  Status EnsureObject(const std::string& name, const k8s::JsonObject& node,
                      const runtime::ObjectPtr& existing, int64_t* generation);

  k8s::Client& client_;
  const runtime::Store& nodes_;
  const runtime::Store& rdmanodes_;
  AgentStateStore& agents_;
  Clock& clock_;
  controllers::WriteMemo<crd::RdmaNodeStatus> written_;
  controllers::StatusFitLog fit_log_{"rdmanode"};
};

}  // namespace rdmastack::rdmanode
