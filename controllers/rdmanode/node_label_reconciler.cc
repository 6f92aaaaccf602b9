#include "controllers/rdmanode/node_label_reconciler.h"

#include <spdlog/spdlog.h>

#include "controllers/rdmanode/node_labels.h"
#include "controllers/rdmanode/rdmanode_reconciler.h"
#include "controllers/rdmanode/recheck.h"
#include "crds/types/json.h"

namespace rdmastack::rdmanode {

NodeLabelReconciler::NodeLabelReconciler(k8s::Client& client, const runtime::Store& nodes,
                                         const runtime::Store& rdmanodes, Clock& clock,
                                         Clock::Duration grace)
    : client_(client), nodes_(nodes), rdmanodes_(rdmanodes), clock_(clock), grace_(grace) {}

StatusOr<runtime::Result> NodeLabelReconciler::Reconcile(const runtime::Request& request) {
  const std::string& name = request.name;
  const runtime::ObjectPtr node = nodes_.Get(name);
  if (node == nullptr || node->IsBeingDeleted()) {
    written_.Forget(name);
    return runtime::Result{};
  }
  // No RdmaNode (or no status yet): the node carries none of our labels.
  DesiredLabels desired;
  if (const runtime::ObjectPtr rnode = rdmanodes_.Get(name); rnode != nullptr) {
    auto parsed = crd::ParseResource<crd::RdmaNode>(rnode->value());
    if (!parsed.ok()) return parsed.status().WithContext("RdmaNode " + name);
    if (parsed->status) desired = DesiredNodeLabels(*parsed->status, clock_.WallNow(), grace_);
  }
  runtime::Result result;
  if (desired.recheck_at) {
    result.requeue_after = RecheckIn(*desired.recheck_at, clock_.WallNow());
  }
  const std::string patch = NodeLabelPatch(node->Labels(), desired.labels);
  if (patch.empty() || written_.Pending(name, patch, node->ResourceVersion())) return result;
  k8s::PatchOptions options;
  options.field_manager = kFieldManager;
  auto patched =
      client_.Patch(k8s::kinds::Node(), "", name, k8s::PatchType::kMerge, patch, options);
  if (!patched.ok()) return patched.status().WithContext("label Node " + name);
  written_.Remember(name, patch, std::string(patched->ResourceVersion()));
  spdlog::info("node {}: labels {}", name, patch);
  return result;
}

}  // namespace rdmastack::rdmanode
