#pragma once
// The skeleton of a pass of a custom resource that owns workloads (GatewayPool, ClientProfile):
//   1. the object left the cache: what was written for it is forgotten; done.
//   2. it does not parse: a terminal error (only an edit fixes it).
//   3. it is being deleted: its cleanup runs while our finalizer is on it; done.
//   4. our finalizer goes on first, so that a deletion from then on waits for the cleanup; then
//      the pass proper, which ends with OwnerStatus::Publish (owner_status.h).
// What a pass is made of sits beside this: node_walk.h (the nodes and the silent-agent rule),
// owned_objects.h and owned_pod.h (the owner's objects and pods in the caches), object_writer.h
// (the writes).

#include <functional>
#include <string_view>

#include "controllers/common/object_writer.h"
#include "controllers/common/owner_status.h"
#include "crds/types/json.h"
#include "operator/runtime/reconciler.h"
#include "operator/runtime/store.h"

namespace rdmastack::controllers {

// The custom resource a reconciler owns: its cache, its API type, its finalizer.
struct OwnerKind {
  const runtime::Store& cache;
  const k8s::ResourceType& type;
  std::string_view finalizer;
};

bool HasFinalizer(const k8s::JsonObject& object, std::string_view finalizer);

template <typename Resource>
using CleanupFunc = std::function<Status(const k8s::JsonObject& object, const Resource& resource)>;
template <typename Resource>
using PassFunc = std::function<StatusOr<runtime::Result>(const k8s::JsonObject& object,
                                                         const Resource& resource)>;

template <typename Resource, typename StatusType>
StatusOr<runtime::Result> ReconcileOwner(const runtime::Request& request, const OwnerKind& kind,
                                         ObjectWriter& writer,
                                         OwnerStatus<Resource, StatusType>& status,
                                         const CleanupFunc<Resource>& cleanup,
                                         const PassFunc<Resource>& pass) {
  const runtime::ObjectPtr object = kind.cache.Get(request.Key());
  if (object == nullptr) {
    status.Forget(request.Key());
    return runtime::Result{};
  }
  auto parsed = crd::ParseResource<Resource>(object->value());
  if (!parsed.ok()) return runtime::TerminalError(parsed.status().WithContext(request.Key()));
  if (object->IsBeingDeleted()) {
    if (HasFinalizer(*object, kind.finalizer)) RDMASTACK_RETURN_IF_ERROR(cleanup(*object, *parsed));
    return runtime::Result{};
  }
  RDMASTACK_RETURN_IF_ERROR(writer.EnsureFinalizer(kind.type, *object, kind.finalizer));
  return pass(*object, *parsed);
}

}  // namespace rdmastack::controllers
