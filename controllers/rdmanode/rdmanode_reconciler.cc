#include "controllers/rdmanode/rdmanode_reconciler.h"

#include <spdlog/spdlog.h>

#include "controllers/common/render.h"
#include "controllers/common/status_writer.h"
#include "controllers/rdmanode/rdmanode_status.h"
#include "controllers/rdmanode/recheck.h"
#include "crds/types/json.h"
#include "crds/types/kinds.h"

namespace rdmastack::rdmanode {
namespace {

// Whether `existing` is ours for this Node: spec.nodeName set and the Node as controller owner.
bool OwnedBy(const k8s::JsonObject& existing, const k8s::JsonObject& node) {
  if (existing.GetString({"spec", "nodeName"}) != std::string(node.Name())) return false;
  for (const auto& ref : existing.OwnerReferences()) {
    if (ref.kind == "Node" && ref.uid == node.Uid() && ref.controller) return true;
  }
  return false;
}

k8s::JsonObject DesiredObject(const std::string& name, const k8s::JsonObject& node) {
  k8s::JsonBuilder o;
  o.SetApiVersion(crd::kApiVersion);
  o.SetKind("RdmaNode");
  o.SetName(name);
  o.Append({"metadata", "ownerReferences"},
           controllers::NodeControllerOwner(node.Name(), node.Uid()));
  o.SetString({"spec", "nodeName"}, name);
  return std::move(o).Build();
}

}  // namespace

RdmaNodeReconciler::RdmaNodeReconciler(k8s::Client& client, const runtime::Store& nodes,
                                       const runtime::Store& rdmanodes, AgentStateStore& agents,
                                       Clock& clock)
    : client_(client), nodes_(nodes), rdmanodes_(rdmanodes), agents_(agents), clock_(clock) {}

Status RdmaNodeReconciler::EnsureObject(const std::string& name, const k8s::JsonObject& node,
                                        const runtime::ObjectPtr& existing, int64_t* generation) {
  if (existing != nullptr && OwnedBy(*existing, node)) {
    *generation = existing->Generation();
    return OkStatus();
  }
  k8s::PatchOptions options;
  options.field_manager = kFieldManager;
  options.force = true;
  auto applied = client_.Apply(crd::kinds::RdmaNode(), DesiredObject(name, node), options);
  if (!applied.ok()) return applied.status().WithContext("apply RdmaNode " + name);
  spdlog::info("rdmanode {}: {} (owner Node uid {})", name,
               existing == nullptr ? "created" : "owner set", node.Uid());
  *generation = applied->Generation();
  return OkStatus();
}

StatusOr<runtime::Result> RdmaNodeReconciler::Reconcile(const runtime::Request& request) {
  const std::string& name = request.name;
  const runtime::ObjectPtr node = nodes_.Get(name);
  if (node == nullptr || node->IsBeingDeleted()) {
    // The garbage collector removes the RdmaNode with its owner; the agent state goes here.
    agents_.Forget(name);
    written_.Forget(name);
    fit_log_.Forget(name);
    return runtime::Result{};
  }
  const runtime::ObjectPtr existing = rdmanodes_.Get(name);
  std::optional<AgentSnapshot> agent = agents_.Get(name);
  if (!agent && existing == nullptr) return runtime::Result{};  // no agent has spoken for it
  // A fresh connection sends its report right away: an RdmaNode saying NeverReported is worth
  // writing only when that report does not come within the TTL.
  if (existing == nullptr && agent->report == nullptr) {
    const auto deadline = agent->last_seen + agents_.stale_ttl();
    const auto now = clock_.WallNow();
    if (now <= deadline) {
      return runtime::Result{std::max<Clock::Duration>(
          std::chrono::duration_cast<Clock::Duration>(deadline - now) + std::chrono::seconds(1),
          std::chrono::seconds(1))};
    }
  }

  const std::optional<crd::RdmaNode> current = ReadCurrent(name, existing);
  int64_t generation = 0;
  RDMASTACK_RETURN_IF_ERROR(EnsureObject(name, *node, existing, &generation));

  const std::string cached_rv = existing != nullptr ? std::string(existing->ResourceVersion()) : "";
  // Our last status write, when the cache has not delivered it yet (a reconcile soon after it,
  // e.g. for the RdmaNode's own create event). Computed from the stale cache instead, the status
  // would take new transition and report times, and a second boundary between the two passes made
  // that a second write of the same report.
  const std::optional<crd::RdmaNodeStatus> unseen = written_.Unseen(name, cached_rv);
  StatusInputs in;
  in.previous = unseen ? &*unseen : current && current->status ? &*current->status : nullptr;
  in.agent = std::move(agent);
  in.now = clock_.WallNow();
  in.known_since = agents_.created_at();
  in.stale_ttl = agents_.stale_ttl();
  in.generation = generation;
  ComputedStatus computed = ComputeRdmaNodeStatus(in);

  runtime::Result result;
  if (computed.recheck_at) {
    result.requeue_after = RecheckIn(*computed.recheck_at, in.now);
  }
  const bool unchanged = in.previous != nullptr && *in.previous == computed.status;
  if (unchanged) return result;

  RDMASTACK_RETURN_IF_ERROR(WriteStatus(name, in.previous, std::move(computed.status)));
  return result;
}

std::optional<crd::RdmaNode> RdmaNodeReconciler::ReadCurrent(const std::string& name,
                                                             const runtime::ObjectPtr& existing) {
  if (existing == nullptr) return std::nullopt;
  auto parsed = crd::ParseResource<crd::RdmaNode>(existing->value());
  if (parsed.ok()) return std::move(*parsed);
  // A status we cannot read is rewritten from what the agent says.
  spdlog::warn("rdmanode {}: {}", name, parsed.status().ToString());
  return std::nullopt;
}

Status RdmaNodeReconciler::WriteStatus(const std::string& name, const crd::RdmaNodeStatus* previous,
                                       crd::RdmaNodeStatus status) {
  crd::RdmaNode desired;
  desired.metadata.name = name;
  desired.status = std::move(status);
  auto fitted = crd::FitStatusPatch(desired);
  if (!fitted.ok()) return fitted.status().WithContext("RdmaNode " + name);
  // What needed fitting differs from what the server holds only where the fit changed it.
  if (previous != nullptr && *previous == fitted->status()) return OkStatus();
  auto applied =
      controllers::ApplyFittedStatus(client_, crd::kinds::RdmaNode(), name, *fitted, fit_log_);
  if (!applied.ok()) return applied.status();
  written_.Remember(name, fitted->status(), std::string(applied->ResourceVersion()));
  const crd::Condition* reporting = FindCondition(fitted->status(), kReporting);
  spdlog::info("rdmanode {}: status written (Reporting={} {})", name,
               reporting != nullptr ? crd::ToString(reporting->status) : "",
               reporting != nullptr ? reporting->reason : "");
  return OkStatus();
}

}  // namespace rdmastack::rdmanode
