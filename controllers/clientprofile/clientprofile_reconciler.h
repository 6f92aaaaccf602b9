#pragma once
// The thin shell around DecideEligibility, the renderers and ComputeProfileStatus: reads the
// caches, labels each matched node eligible or ready (its client pod's readiness), keeps the
// client DaemonSet and the endpoints ConfigMap, and writes the status and a Warning event when a
// condition turns bad. Nothing is deployed while the pool is missing or the spec is refused, and
// what runs is never taken down for it. Deleting a profile removes its clients (each removes what
// it installed on its node) and its node labels.

#include <string>

#include "controllers/clientprofile/client_workload.h"
#include "controllers/clientprofile/profile_status.h"
#include "controllers/common/object_writer.h"
#include "controllers/common/write_memo.h"
#include "operator/k8s/client.h"
#include "operator/runtime/event_recorder.h"
#include "operator/runtime/reconciler.h"
#include "operator/runtime/store.h"

namespace rdmastack::clientprofile {

struct ClientProfileStores {
  const runtime::Store& profiles;
  const runtime::Store& pools;
  const runtime::Store& nodes;  // labels only
  const runtime::Store& rdmanodes;
  const runtime::Store& secrets;     // keys of data only, never values
  const runtime::Store& slices;      // the pools' EndpointSlices
  const runtime::Store& daemonsets;  // the profiles' client DaemonSets
  const runtime::Store& configmaps;  // the profiles' endpoints ConfigMaps
  const runtime::Store& pods;        // the profiles' client pods
};

class ClientProfileReconciler final : public runtime::Reconciler {
 public:
  ClientProfileReconciler(k8s::Client& client, runtime::EventRecorder& events, Clock& clock,
                          ClientProfileStores stores, ClientRenderOptions render);
  StatusOr<runtime::Result> Reconcile(const runtime::Request& request) override;
  // An owned object left the cache: the next reconcile writes it again if it is still wanted.
  void ObjectDeleted(const k8s::JsonObject& object) { writer_.Forget(object); }

 private:
  static constexpr size_t kLabelWriters = 16;
  Status Cleanup(const k8s::JsonObject& object, const crd::ClientProfile& profile);
  Status WriteStatus(const k8s::JsonObject& object, const crd::ClientProfile& profile,
                     const crd::ClientProfileStatus& status);
  void RecordTransitions(const k8s::JsonObject& object, const crd::ClientProfile& profile,
                         const crd::ClientProfileStatus& status);

  k8s::Client& client_;
  runtime::EventRecorder& events_;
  Clock& clock_;
  ClientProfileStores stores_;
  const ClientRenderOptions render_;
  controllers::ObjectWriter writer_;
  controllers::WriteMemo<crd::ClientProfileStatus> statuses_;  // profile key -> status
};

}  // namespace rdmastack::clientprofile
