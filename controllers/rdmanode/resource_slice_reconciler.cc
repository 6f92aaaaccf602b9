#include "controllers/rdmanode/resource_slice_reconciler.h"

#include "controllers/common/render.h"
#include "controllers/rdmanode/node_labels.h"
#include "controllers/rdmanode/recheck.h"
#include "controllers/rdmanode/resource_slice.h"
#include "crds/types/json.h"

namespace rdmastack::rdmanode {

const k8s::ResourceType& ResourceSliceType() {
  static const k8s::ResourceType type{"resource.k8s.io", "v1", "ResourceSlice", "resourceslices",
                                      false};
  return type;
}

ResourceSliceReconciler::ResourceSliceReconciler(k8s::Client& client, const runtime::Store& nodes,
                                                 const runtime::Store& rdmanodes,
                                                 const runtime::Store& slices, Clock& clock,
                                                 Clock::Duration grace, std::string driver)
    : nodes_(nodes),
      rdmanodes_(rdmanodes),
      slices_(slices),
      clock_(clock),
      grace_(grace),
      driver_(std::move(driver)),
      writer_(client, "resourceslice") {}

StatusOr<runtime::Result> ResourceSliceReconciler::Reconcile(const runtime::Request& request) {
  const std::string& name = request.name;
  const runtime::ObjectPtr existing = slices_.Get(ResourceSliceName(name, driver_));
  const runtime::ObjectPtr node = nodes_.Get(name);
  // A Node that goes takes its slice with it (the ownerReference).
  if (node == nullptr || node->IsBeingDeleted()) return runtime::Result{};
  std::optional<crd::RdmaNodeStatus> status;
  if (const runtime::ObjectPtr rnode = rdmanodes_.Get(name); rnode != nullptr) {
    auto parsed = crd::ParseResource<crd::RdmaNode>(rnode->value());
    if (!parsed.ok()) return parsed.status().WithContext("RdmaNode " + name);
    status = std::move(parsed->status);
  }
  runtime::Result result;
  std::optional<k8s::JsonObject> desired;
  if (status) {
    const FactsTrust trust = TrustFacts(*status, clock_.WallNow(), grace_);
    if (trust.recheck_at) {
      result.requeue_after = RecheckIn(*trust.recheck_at, clock_.WallNow());
    }
    const SliceNode slice_node{name, node->Uid()};
    if (trust.trusted) desired = RenderResourceSlice(driver_, slice_node, *status, 1);
    // The pool's generation goes up with each change of its devices.
    if (desired && existing != nullptr &&
        existing->Annotation(controllers::kAppliedHashAnnotation) !=
            desired->Annotation(controllers::kAppliedHashAnnotation)) {
      const int64_t generation = existing->GetInt({"spec", "pool", "generation"}).value_or(0);
      desired = RenderResourceSlice(driver_, slice_node, *status, generation + 1);
    }
  }
  if (!desired) {
    RDMASTACK_RETURN_IF_ERROR(writer_.Delete(ResourceSliceType(), existing));
    return result;
  }
  RDMASTACK_RETURN_IF_ERROR(writer_.ApplyIfChanged(ResourceSliceType(), *desired, existing));
  return result;
}

}  // namespace rdmastack::rdmanode
