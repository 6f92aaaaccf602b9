#pragma once
// The thin shell around PlanProfile (profile_plan.h) and ComputeProfileStatus, on the skeleton of
// controllers/common (reconcile_skeleton.h): a pass reads the caches into a snapshot, plans, and
// applies the plan: labels each matched node eligible or ready (its client pod's readiness), keeps
// the client DaemonSet and the endpoints ConfigMap, and writes the status and a Warning event when
// a condition turns bad. Nothing is deployed while the pool is missing or the spec is refused,
// and what runs is never taken down for it. A node that leaves the profile, and every node when the
// profile is deleted, keeps the profile's files until no running pod there names the profile; then
// the uninstall DaemonSet removes them and the label goes (node_retirement.h).

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "controllers/clientprofile/client_workload.h"
#include "controllers/clientprofile/profile_plan.h"
#include "controllers/clientprofile/profile_status.h"
#include "controllers/clientprofile/s3_user_provisioner.h"
#include "controllers/common/namespaced_cache.h"
#include "controllers/common/node_label_filter.h"
#include "controllers/common/owned_pod.h"
#include "controllers/common/reconcile_skeleton.h"
#include "lib/s3/versitygw_admin.h"
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
  controllers::NamespacedCache secrets;     // keys of data only, never values
  controllers::NamespacedCache slices;      // the pools' EndpointSlices
  controllers::NamespacedCache daemonsets;  // the profiles' client and uninstall DaemonSets
  controllers::NamespacedCache configmaps;  // the profiles' endpoints ConfigMaps
  controllers::NamespacedCache pods;        // the profiles' client and uninstall pods
  controllers::NamespacedCache workloads;   // pods naming a profile: node and phase
  // Whether `nodes` holds the label keys a selector names (node_label_filter.h).
  controllers::NodeLabelCoverage& node_labels;
};

class ClientProfileReconciler final
    : public controllers::OwnerReconciler<crd::ClientProfile, crd::ClientProfileStatus> {
 public:
  ClientProfileReconciler(k8s::Client& client, runtime::EventRecorder& events, Clock& clock,
                          ClientProfileStores stores, ClientRenderOptions render,
                          uint64_t gateway_answer_max_bytes = s3::kDefaultMaxAnswerBytes);

 private:
  static constexpr size_t kLabelWriters = 16;
  StatusOr<runtime::Result> Pass(const k8s::JsonObject& object,
                                 const crd::ClientProfile& profile) override;
  StatusOr<runtime::Result> Cleanup(const k8s::JsonObject& object,
                                    const crd::ClientProfile& profile) override;
  std::optional<crd::GatewayPool> Pool(const std::string& ns,
                                       const crd::ClientProfile& profile) const;
  // The ready endpoints of the pool's own EndpointSlices (controller reference to the pool).
  std::vector<PoolEndpoint> PoolEndpoints(const crd::GatewayPool& pool) const;
  // What the caches hold for the profile (profile_plan.h).
  ProfileSnapshot Snapshot(const k8s::JsonObject& object, const crd::ClientProfile& profile,
                           const std::optional<crd::GatewayPool>& pool) const;
  // Look-alikes of the profile's DaemonSets, pods and ConfigMaps are named in Warning events on
  // `object` (owned_objects.h).
  std::map<std::string, NodePods> PodsByNode(const k8s::JsonObject& object,
                                             const crd::ClientProfile& profile) const;
  // Writes the label patches, but those equal to one of this process's still in flight.
  Status PatchLabels(const std::vector<LabelPatch>& patches);
  // The uninstall DaemonSet exists while some node is retiring, and not otherwise.
  Status SyncUninstaller(const crd::ClientProfile& profile, bool needed);

  k8s::Client& client_;
  runtime::EventRecorder& events_;
  Clock& clock_;
  ClientProfileStores stores_;
  const ClientRenderOptions render_;
  // An https pool's CA (ca.crt of its s3.tlsSecret) for its clients, read with a GET when the
  // Secret's resourceVersion changes (the Secrets cache holds key names only).
  StatusOr<std::string> PoolCaBundle(const crd::GatewayPool& pool);
  struct CaBundle {
    std::string resource_version;
    std::string pem;
  };
  std::mutex ca_mu_;
  std::map<std::string, CaBundle> ca_bundles_;  // Secret key -> CA
  S3UserProvisioner s3_users_;
};

}  // namespace rdmastack::clientprofile
