#pragma once
// The skeleton of the reconciler of a custom resource that owns workloads (GatewayPool,
// ClientProfile). Reconcile takes the same steps for each:
//   1. the object left the cache: what was written for it is forgotten; done.
//   2. it does not parse: a terminal error (only an edit fixes it).
//   3. it is being deleted: Cleanup runs while our finalizer is on it; done.
//   4. our finalizer goes on first, so that a deletion from then on waits for the cleanup; then
//      Pass, which ends with status_writer().Publish (owner_status.h).
// What a pass is made of sits beside this: node_walk.h (the nodes and the silent-agent rule),
// owned_objects.h and owned_pod.h (the owner's objects and pods in the caches), object_writer.h
// (the writes).

#include <string>
#include <string_view>
#include <utility>

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

template <typename Resource, typename StatusType>
class OwnerReconciler : public runtime::Reconciler {
 public:
  StatusOr<runtime::Result> Reconcile(const runtime::Request& request) final {
    const runtime::ObjectPtr object = kind_.cache.Get(request.Key());
    if (object == nullptr) {
      status_.Forget(request.Key());
      return runtime::Result{};
    }
    auto parsed = crd::ParseResource<Resource>(object->value());
    if (!parsed.ok()) return runtime::TerminalError(parsed.status().WithContext(request.Key()));
    if (object->IsBeingDeleted()) {
      if (HasFinalizer(*object, kind_.finalizer)) return Cleanup(*object, *parsed);
      return runtime::Result{};
    }
    RDMASTACK_RETURN_IF_ERROR(writer_.EnsureFinalizer(kind_.type, *object, kind_.finalizer));
    return Pass(*object, *parsed);
  }

  // An owned object left the cache: the next pass writes it again if it is still wanted.
  void ObjectDeleted(const k8s::JsonObject& object) { writer_.Forget(object); }

 protected:
  // `log_name` starts the log lines ("gatewaypool"); `rules` and `summary`: OwnerStatus.
  OwnerReconciler(k8s::Client& client, runtime::EventRecorder& events, OwnerKind kind,
                  const std::string& log_name, std::vector<ConditionEvent> rules,
                  typename OwnerStatus<Resource, StatusType>::Summary summary)
      : kind_(kind),
        writer_(client, log_name),
        status_(client, events, kind.type, log_name, std::move(rules), std::move(summary)) {}

  // A pass over an object that is not being deleted and carries the finalizer.
  virtual StatusOr<runtime::Result> Pass(const k8s::JsonObject& object,
                                         const Resource& resource) = 0;
  // The object is being deleted and still carries the finalizer: remove what it owns, then the
  // finalizer (status_writer().Forget the key once it is gone). A cleanup that waits on the
  // nodes returns a requeue.
  virtual StatusOr<runtime::Result> Cleanup(const k8s::JsonObject& object,
                                            const Resource& resource) = 0;

  ObjectWriter& writer() { return writer_; }
  const ObjectWriter& writer() const { return writer_; }
  OwnerStatus<Resource, StatusType>& status_writer() { return status_; }

 private:
  const OwnerKind kind_;
  ObjectWriter writer_;
  OwnerStatus<Resource, StatusType> status_;
};

}  // namespace rdmastack::controllers
