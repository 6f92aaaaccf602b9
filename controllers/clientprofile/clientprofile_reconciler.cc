#include "controllers/clientprofile/clientprofile_reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "controllers/clientprofile/node_retirement.h"
#include "controllers/clientprofile/profile_conditions.h"
#include "controllers/common/credentials_secret.h"
#include "controllers/common/host_policy.h"
#include "controllers/common/node_label_keys.h"
#include "controllers/common/node_walk.h"
#include "controllers/common/owned_objects.h"
#include "controllers/common/owned_pod.h"
#include "controllers/common/reconcile_skeleton.h"
#include "controllers/common/render.h"
#include "crds/types/gatewaypool_api.h"
#include "crds/types/json.h"
#include "crds/types/kinds.h"

namespace rdmastack::clientprofile {
namespace {

// What the profile's controller references name (owned_objects.h); its label only selects.
controllers::Owner OwnerOf(const crd::ClientProfile& profile) {
  return controllers::OwnerOf(profile.metadata, kProfileLabel);
}

// The condition changes a human should hear of.
std::vector<controllers::ConditionEvent> ConditionEvents() {
  using crd::ConditionStatus;
  using runtime::EventType;
  return {{kDegraded, ConditionStatus::kTrue, EventType::kWarning, "Degrade"},
          {kNodesEligible, ConditionStatus::kFalse, EventType::kWarning, "Evaluate"},
          {kReady, ConditionStatus::kTrue, EventType::kNormal, "Ready"}};
}

std::string ReadyClients(const crd::ClientProfileStatus& s) {
  return "clients " + (s.node_counts ? s.node_counts->ready_of_eligible : "");
}

}  // namespace

ClientProfileReconciler::ClientProfileReconciler(k8s::Client& client,
                                                 runtime::EventRecorder& events, Clock& clock,
                                                 ClientProfileStores stores,
                                                 ClientRenderOptions render,
                                                 uint64_t gateway_answer_max_bytes)
    : OwnerReconciler(client, events, {stores.profiles, crd::kinds::ClientProfile(), kFinalizer},
                      "clientprofile", ConditionEvents(), ReadyClients),
      client_(client),
      events_(events),
      clock_(clock),
      stores_(stores),
      render_(std::move(render)),
      s3_users_(client, stores.secrets, clock, gateway_answer_max_bytes) {}

StatusOr<std::string> ClientProfileReconciler::PoolCaBundle(const crd::GatewayPool& pool) {
  if (!pool.spec.s3.tls_secret) return std::string();
  const std::string ns = pool.metadata.namespace_.value_or("");
  const std::string& secret_name = pool.spec.s3.tls_secret->name;
  const std::string key = ns + "/" + secret_name;
  const runtime::ObjectPtr cached = stores_.secrets.Get(key);
  if (cached == nullptr)
    return NotFoundError("pool " + ns + "/" + pool.metadata.name + ": Secret " + key +
                         " (s3.tlsSecret) does not exist");
  const std::string rv(cached->ResourceVersion());
  {
    std::lock_guard lock(ca_mu_);
    if (auto it = ca_bundles_.find(key);
        it != ca_bundles_.end() && it->second.resource_version == rv)
      return it->second.pem;
  }
  RDMASTACK_ASSIGN_OR_RETURN(
      std::vector<std::string> ca,
      controllers::ReadSecretValues(client_, ns, secret_name, {gatewaypool::kTlsCaKey}));
  std::lock_guard lock(ca_mu_);
  ca_bundles_[key] = {rv, ca[0]};
  return ca[0];
}

std::vector<PoolEndpoint> ClientProfileReconciler::PoolEndpoints(
    const crd::GatewayPool& pool) const {
  // Only the pool's own slices: a look-alike's address would get the clients' requests and the
  // S3 user provisioning's admin calls.
  const controllers::Owner owner = controllers::OwnerOf(pool.metadata, gatewaypool::kPoolLabel);
  std::vector<runtime::ObjectPtr> held = controllers::ListOwned(stores_.slices, owner);
  std::vector<const k8s::JsonObject*> slices;
  for (const auto& s : held) slices.push_back(s.get());
  return ReadyEndpoints(slices);
}

std::optional<crd::GatewayPool> ClientProfileReconciler::Pool(
    const std::string& ns, const crd::ClientProfile& profile) const {
  const runtime::ObjectPtr p = stores_.pools.Get(ns + "/" + profile.spec.gateway_pool_ref.name);
  if (p == nullptr || p->IsBeingDeleted()) return std::nullopt;
  auto parsed = crd::ParseResource<crd::GatewayPool>(p->value());
  if (!parsed.ok()) return std::nullopt;
  return std::move(*parsed);
}

ProfileSnapshot ClientProfileReconciler::Snapshot(
    const k8s::JsonObject& object, const crd::ClientProfile& profile,
    const std::optional<crd::GatewayPool>& pool) const {
  const std::string ns = profile.metadata.namespace_.value_or("");
  ProfileSnapshot s;
  s.profile = &profile;
  s.now = clock_.WallNow();
  s.pool = pool;
  if (pool) s.endpoints = PoolEndpoints(*pool);
  s.unserved = controllers::CheckNamespace(render_.node_pods.tenancy, ns, "ClientProfile");
  // The Secrets of a namespace the operator does not serve are not in its cache.
  if (const auto& creds = profile.spec.credentials_secret; creds && !s.unserved) {
    s.secret_message =
        controllers::CheckCredentialsSecret(stores_.secrets, ns, *creds, "credentialsSecret")
            .message;
  }
  const std::string label = ClientNodeLabel(ns, profile.metadata.name);
  controllers::ForEachNode(
      stores_.nodes, stores_.rdmanodes, profile.spec.node_selector,
      [&](controllers::NodeView& node) {
        // Unselected nodes matter only while they carry the label.
        if (!node.selected && !node.labels.contains(label)) return;
        s.nodes.push_back({node.object, node.selected, std::move(node.report)});
      });
  s.pods = PodsByNode(object, profile);
  return s;
}

Status ClientProfileReconciler::PatchLabels(const std::vector<LabelPatch>& patches) {
  std::vector<std::pair<std::string, std::string>> due;
  for (const LabelPatch& p : patches) {
    if (!writer().NodePatchPending(p.node, p.body, p.resource_version))
      due.emplace_back(p.node, p.body);
  }
  return writer().PatchNodes(due, kLabelWriters);
}

StatusOr<runtime::Result> ClientProfileReconciler::Pass(const k8s::JsonObject& object,
                                                        const crd::ClientProfile& profile) {
  // Nothing is decided until the Node cache holds the label keys the selector names: until its
  // re-list is in, a node carrying such a key looks unselected (node_label_filter.h).
  if (!stores_.node_labels.Covers(controllers::SelectorKeys(profile.spec.node_selector)))
    return runtime::Result{controllers::kNodeCacheWait};
  const std::optional<crd::GatewayPool> pool =
      Pool(profile.metadata.namespace_.value_or(""), profile);
  const ProfileSnapshot snapshot = Snapshot(object, profile, pool);
  ProfilePlan plan = PlanProfile(snapshot, render_);

  // Workloads: only with a pool and an accepted spec; otherwise what runs stays as it is. Each
  // write waits for the one before: the endpoints before the clients that read them, the S3 user
  // before the clients that sign with its keys, the uninstaller before the labels that schedule
  // it, and removed after the last of them is gone.
  Status synced = OkStatus();
  runtime::Result result;
  if (pool && plan.daemonset) {
    const controllers::Owner owner = OwnerOf(profile);
    const std::string cm_name = EndpointsConfigMapName(profile.metadata.name);
    const std::string ds_name = DaemonSetName(profile.metadata.name);
    StatusOr<std::string> ca = PoolCaBundle(*pool);
    synced = ca.status();
    if (synced.ok() && profile.spec.s3_user) {
      S3UserProvisioner::Outcome user = s3_users_.Sync(profile, *pool, snapshot.endpoints, *ca);
      plan.status.s3_user = std::move(user.status);
      plan.status.s3_user_message = std::move(user.problem);
      result.requeue_after = user.requeue_after;
    }
    if (synced.ok())
      synced = controllers::CheckNameFree(stores_.configmaps, owner, "ConfigMap", cm_name);
    if (synced.ok())
      synced =
          writer().ApplyIfChanged(k8s::kinds::ConfigMap(),
                                  RenderEndpointsConfigMap(profile, *pool, snapshot.endpoints, *ca),
                                  controllers::GetOwned(stores_.configmaps, owner, cm_name));
    if (synced.ok())
      synced = controllers::CheckNameFree(stores_.daemonsets, owner, "DaemonSet", ds_name);
    if (synced.ok())
      synced = writer().ApplyIfChanged(k8s::kinds::DaemonSet(), *plan.daemonset,
                                       controllers::GetOwned(stores_.daemonsets, owner, ds_name));
    if (synced.ok() && plan.labels.uninstaller_needed) synced = SyncUninstaller(profile, true);
    if (synced.ok()) synced = PatchLabels(plan.labels.patches);
    if (synced.ok() && !plan.labels.uninstaller_needed) synced = SyncUninstaller(profile, false);
  }

  RDMASTACK_RETURN_IF_ERROR(
      status_writer().Publish(object, profile, ComputeProfileStatus(plan.status), synced));
  return result;
}

StatusOr<runtime::Result> ClientProfileReconciler::Cleanup(const k8s::JsonObject& object,
                                                           const crd::ClientProfile& profile) {
  const std::string ns = profile.metadata.namespace_.value_or("");
  const std::string& name = profile.metadata.name;
  // The clients first; their stop leaves the files, which every labelled node then gives up as a
  // node leaving the profile does: once no running pod there names the profile.
  const controllers::Owner owner = OwnerOf(profile);
  RDMASTACK_RETURN_IF_ERROR(
      writer().Delete(k8s::kinds::DaemonSet(),
                      controllers::GetOwned(stores_.daemonsets, owner, DaemonSetName(name))));
  const std::string label = ClientNodeLabel(ns, name);
  const std::map<std::string, NodePods> pods = PodsByNode(object, profile);
  LabelPlan plan;
  for (const auto& node : stores_.nodes.List()) {
    const std::optional<std::string> current = node->Label(label);
    if (!current) continue;
    PlanNodeLabel(node, label, current, /*wanted=*/false, false,
                  PodsOn(pods, std::string(node->Name())), &plan);
  }
  if (plan.uninstaller_needed) {
    RDMASTACK_RETURN_IF_ERROR(SyncUninstaller(profile, true));
    RDMASTACK_RETURN_IF_ERROR(PatchLabels(plan.patches));
    if (plan.retiring.size() > kMaxListedNodes) plan.retiring.resize(kMaxListedNodes);
    crd::ClientProfileStatus status = profile.status.value_or(crd::ClientProfileStatus{});
    status.retiring_nodes = std::move(plan.retiring);
    RDMASTACK_RETURN_IF_ERROR(status_writer().Write(object, profile, status));
    spdlog::info("clientprofile {}/{}: deleting; waiting for {} node(s) to give up its files", ns,
                 name, status.retiring_nodes.size());
    return runtime::Result{};
  }
  RDMASTACK_RETURN_IF_ERROR(PatchLabels(plan.patches));
  RDMASTACK_RETURN_IF_ERROR(SyncUninstaller(profile, false));
  // The S3 user after its clients are gone; its Secret goes with the profile (owner reference).
  if (const std::optional<crd::GatewayPool> pool = Pool(ns, profile);
      pool && profile.spec.s3_user) {
    StatusOr<std::string> ca = PoolCaBundle(*pool);
    const std::vector<std::string> failed =
        ca.ok() ? s3_users_.Remove(profile, *pool, PoolEndpoints(*pool), *ca)
                : std::vector<std::string>{std::string(ca.status().message())};
    for (const std::string& f : failed)
      events_.Record(
          object, runtime::EventType::kWarning, "S3UserCleanupFailed", "Cleanup",
          "the S3 user stays on a gateway (its keys are deleted with the profile): " + f);
  }
  RDMASTACK_RETURN_IF_ERROR(writer().Delete(
      k8s::kinds::ConfigMap(),
      controllers::GetOwned(stores_.configmaps, owner, EndpointsConfigMapName(name))));
  RDMASTACK_RETURN_IF_ERROR(
      writer().RemoveFinalizer(crd::kinds::ClientProfile(), object, kFinalizer));
  status_writer().Forget(object.Key());
  spdlog::info("clientprofile {}/{}: deleted its clients, their files and its node labels", ns,
               name);
  return runtime::Result{};
}

std::map<std::string, NodePods> ClientProfileReconciler::PodsByNode(
    const k8s::JsonObject& object, const crd::ClientProfile& owner_profile) const {
  const std::string ns = owner_profile.metadata.namespace_.value_or("");
  const std::string& profile = owner_profile.metadata.name;
  std::map<std::string, NodePods> out;
  // The client's and the uninstaller's pods: those of the profile's own DaemonSets.
  const controllers::Owner owner = OwnerOf(owner_profile);
  controllers::Claimed daemonsets = controllers::Claim(stores_.daemonsets, owner);
  controllers::Claimed pods_claimed = controllers::ClaimPods(stores_.pods, owner, daemonsets.owned);
  controllers::Claimed configmaps = controllers::Claim(stores_.configmaps, owner);
  controllers::RecordLookAlikes(events_, object, "DaemonSet", owner, daemonsets.look_alikes);
  controllers::RecordLookAlikes(events_, object, "Pod", owner, pods_claimed.look_alikes);
  controllers::RecordLookAlikes(events_, object, "ConfigMap", owner, configmaps.look_alikes);
  const controllers::PodsByNode pods = controllers::GroupByNode(
      controllers::ReadPods(pods_claimed.owned, kClientContainer),
      [](const controllers::OwnedPod& p) -> std::string {
        return p.component == kUninstallComponent ? kUninstallComponent : kClientComponent;
      });
  for (const auto& [node, slots] : pods) {
    NodePods& on = out[node];
    if (auto it = slots.find(kClientComponent); it != slots.end()) on.client = it->second;
    if (auto it = slots.find(kUninstallComponent); it != slots.end()) on.uninstall = it->second;
  }
  // The owner index files workloads by the profile they name (owner_index.h).
  StatusOr<std::vector<runtime::ObjectPtr>> named = stores_.workloads.ByIndex(
      controllers::kOwnerIndex, controllers::OwnerLabelValue(ns, kWorkloadLabel, profile));
  for (const auto& o : named.ok() ? *named : stores_.workloads.List()) {
    if (o->Namespace() != ns || o->Label(kWorkloadLabel) != profile) continue;
    const std::string node = o->GetString({"spec", "nodeName"}).value_or("");
    const std::string phase = o->GetString({"status", "phase"}).value_or("");
    if (node.empty() || phase == "Succeeded" || phase == "Failed") continue;
    out[node].holders.push_back(std::string(o->Name()));
  }
  for (auto& [node, on] : out) std::sort(on.holders.begin(), on.holders.end());
  return out;
}

Status ClientProfileReconciler::SyncUninstaller(const crd::ClientProfile& profile, bool needed) {
  const std::string& name = profile.metadata.name;
  const controllers::Owner owner = OwnerOf(profile);
  const runtime::ObjectPtr existing =
      controllers::GetOwned(stores_.daemonsets, owner, UninstallDaemonSetName(name));
  if (!needed) return writer().Delete(k8s::kinds::DaemonSet(), existing);
  RDMASTACK_RETURN_IF_ERROR(controllers::CheckNameFree(stores_.daemonsets, owner, "DaemonSet",
                                                       UninstallDaemonSetName(name)));
  return writer().ApplyIfChanged(k8s::kinds::DaemonSet(),
                                 RenderUninstallDaemonSet(profile, render_), existing);
}

}  // namespace rdmastack::clientprofile
