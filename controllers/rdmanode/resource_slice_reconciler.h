#pragma once
// Keeps each Node's DRA ResourceSlice (resource_slice.h) in step with its RdmaNode status: applied
// only when the devices change (the slice's pool generation goes up by one then), deleted when
// the node has no port to publish or its agent has been silent past the grace. The Node owns the
// slice, so the garbage collector deletes it with the Node.

#include <string>

#include "base/clock.h"
#include "controllers/common/object_writer.h"
#include "operator/k8s/client.h"
#include "operator/runtime/reconciler.h"
#include "operator/runtime/store.h"

namespace rdmastack::rdmanode {

// resource.k8s.io/v1 ResourceSlice (cluster-scoped).
const k8s::ResourceType& ResourceSliceType();

class ResourceSliceReconciler final : public runtime::Reconciler {
 public:
  // `slices`: the cache of this driver's slices (spec.driver=`driver`).
  ResourceSliceReconciler(k8s::Client& client, const runtime::Store& nodes,
                          const runtime::Store& rdmanodes, const runtime::Store& slices,
                          Clock& clock, Clock::Duration grace, std::string driver);
  StatusOr<runtime::Result> Reconcile(const runtime::Request& request) override;

 private:
  const runtime::Store& nodes_;
  const runtime::Store& rdmanodes_;
  const runtime::Store& slices_;
  Clock& clock_;
  const Clock::Duration grace_;
  const std::string driver_;
  controllers::ObjectWriter writer_;
};

}  // namespace rdmastack::rdmanode
