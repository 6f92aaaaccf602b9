#include "controllers/gatewaypool/gatewaypool_reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <set>

#include "base/rfc3339.h"
#include "controllers/common/node_label_keys.h"
#include "controllers/common/node_selection.h"
#include "controllers/common/node_walk.h"
#include "controllers/common/owned_objects.h"
#include "controllers/common/parallel.h"
#include "controllers/common/reconcile_skeleton.h"
#include "controllers/common/render.h"
#include "controllers/gatewaypool/endpoints.h"
#include "controllers/gatewaypool/iam_cleanup.h"
#include "controllers/gatewaypool/pool_index.h"
#include "controllers/gatewaypool/rails.h"
#include "crds/types/json.h"
#include "crds/types/kinds.h"
#include "crds/types/reasons.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/config.h"
#include "operator/k8s/json_builder.h"

namespace rdmastack::gatewaypool {
namespace {

// What the pool's controller references name (owned_objects.h); its label only selects.
controllers::Owner OwnerOf(const crd::GatewayPool& pool) {
  return controllers::OwnerOf(pool.metadata, kPoolLabel);
}

// The condition changes a human should hear of.
std::vector<controllers::ConditionEvent> ConditionEvents() {
  using crd::ConditionStatus;
  using runtime::EventType;
  return {{kLibraryCompatible, ConditionStatus::kFalse, EventType::kWarning, "Refuse"},
          {kDegraded, ConditionStatus::kTrue, EventType::kWarning, "Degrade",
           crd::reasons::kSpecRefused},
          {kNodesVerified, ConditionStatus::kFalse, EventType::kWarning, "Verify"},
          {kReady, ConditionStatus::kTrue, EventType::kNormal, "Ready"}};
}

std::string ServingNodes(const crd::GatewayPoolStatus& s) {
  return "nodes " + (s.node_counts ? s.node_counts->ready_of_selected : "");
}

}  // namespace

GatewayPoolReconciler::GatewayPoolReconciler(k8s::Client& client, runtime::EventRecorder& events,
                                             Clock& clock, const runtime::ApiReachability& api,
                                             GatewayPoolStores stores,
                                             const CompatibilitySource& compatibility,
                                             GatewayRenderOptions render,
                                             GatewayValidator& validator)
    : OwnerReconciler(client, events, {stores.pools, crd::kinds::GatewayPool(), kFinalizer},
                      "gatewaypool", ConditionEvents(), ServingNodes),
      client_(client),
      events_(events),
      clock_(clock),
      api_(api),
      stores_(stores),
      compatibility_(compatibility),
      render_(std::move(render)),
      validator_(validator) {}

PoolObjects GatewayPoolReconciler::Collect(const crd::GatewayPool& pool) const {
  const controllers::Owner owner = OwnerOf(pool);
  PoolObjects owned;
  controllers::Claimed daemonsets = controllers::Claim(stores_.daemonsets, owner);
  controllers::Claimed slices = controllers::Claim(stores_.slices, owner);
  controllers::Claimed pods = controllers::ClaimPods(stores_.pods, owner, daemonsets.owned);
  controllers::Claimed services = controllers::Claim(stores_.services, owner);
  auto is_cleanup = [](const runtime::ObjectPtr& o) {
    return o->Label(kComponentLabel) == std::optional<std::string>(kIamCleanupComponent);
  };
  for (auto& d : daemonsets.owned) {
    if (!is_cleanup(d)) {
      owned.daemonsets.push_back(std::move(d));
    } else if (d->Name() == IamCleanupDaemonSetName(pool.metadata.name)) {
      owned.iam_cleanup = std::move(d);
    }
  }
  owned.slices = std::move(slices.owned);
  for (auto& p : pods.owned)
    (is_cleanup(p) ? owned.iam_cleanup_pods : owned.pod_objects).push_back(std::move(p));
  owned.pods = controllers::ReadPods(owned.pod_objects, kGatewayContainer);
  owned.service = controllers::GetOwned(stores_.services, owner, ServiceName(pool.metadata.name));
  owned.look_alikes = {{"DaemonSet", std::move(daemonsets.look_alikes)},
                       {"EndpointSlice", std::move(slices.look_alikes)},
                       {"Pod", std::move(pods.look_alikes)},
                       {"Service", std::move(services.look_alikes)}};
  return owned;
}

std::optional<PoolConflict> GatewayPoolReconciler::FindConflict(
    const crd::GatewayPool& pool, const compat::CompatibilityMatrix* matrix) const {
  if (stores_.pools.Size() < 2) return std::nullopt;  // the common case costs nothing
  // Only this pool's nodes can be shared, so the pools that select one of them (the selector
  // index, pool_index.h) are the only ones read, and matched against those nodes alone: a pass
  // costs what its nodes' neighbours hold, not the number of pools.
  std::vector<runtime::ObjectPtr> mine;
  for (const auto& n : stores_.nodes.List()) {
    if (controllers::SelectorMatchesLabelsOf(pool.spec.node_selector, *n)) mine.push_back(n);
  }
  if (mine.empty()) return std::nullopt;
  std::map<std::string, runtime::ObjectPtr> neighbours;
  const std::set<std::string> keys = controllers::IndexedSelectorKeys(stores_.pools);
  for (const auto& n : mine) {
    for (runtime::ObjectPtr& p : controllers::OwnersSelecting(stores_.pools, keys, *n))
      neighbours.emplace(p->Key(), std::move(p));
  }
  if (neighbours.size() < 2) return std::nullopt;  // only this pool
  auto footprint = [&](const crd::GatewayPool& p) {
    PoolFootprint f;
    f.namespace_ = p.metadata.namespace_.value_or("");
    f.name = p.metadata.name;
    f.created = p.metadata.creation_timestamp.value_or("");
    f.path_template = p.spec.backend.posix.path_template;
    f.host_path = p.spec.backend.posix.host_path;
    if (p.spec.backend.posix.metadata == crd::BackendMetadata::kSidecar)
      f.sidecar_template = p.spec.backend.posix.sidecar_path_template.value_or("");
    for (const auto& n : mine) {
      if (controllers::SelectorMatchesLabelsOf(p.spec.node_selector, *n))
        f.nodes.insert(std::string(n->Name()));
    }
    auto add = [&f, &p](const Track& t) { f.ports.merge(TrackPorts(p.spec, t)); };
    // A pool of a namespace the operator does not serve starts nothing: it holds ports only with
    // gateways the cache still shows (with a namespace list, the cache has none of an unlisted
    // namespace; operations.md says to delete a namespace's pools before it leaves the list).
    const bool served =
        !controllers::CheckNamespace(render_.node_pods.tenancy, f.namespace_, "GatewayPool");
    if (matrix != nullptr && served) {
      if (TrackDecision d = DecideTrack(p.spec, *matrix); d.track) add(*d.track);
    }
    bool runs = false;
    for (const auto& d : controllers::ListOwned(stores_.daemonsets, OwnerOf(p))) {
      runs = true;
      if (auto t = ParseTrack(d->Annotation(kTrackSpecAnnotation).value_or("")); t.ok()) add(*t);
    }
    if (!served && !runs) f.nodes.clear();  // nor a gateway root
    return f;
  };
  std::vector<PoolFootprint> others;
  for (const auto& [key, o] : neighbours) {
    auto parsed = crd::ParseResource<crd::GatewayPool>(o->value());
    if (parsed.ok()) others.push_back(footprint(*parsed));
  }
  return FindConflictWithOlderPool(footprint(pool), others);
}

bool GatewayPoolReconciler::NodeCacheCovers(const crd::GatewayPool& pool) const {
  // Until the Node cache's re-list is in, a node carrying a label key this pool's selector or
  // another pool's (FindConflict matches them all) names looks unselected, and the status would
  // drop it (node_label_filter.h).
  std::set<std::string> keys = controllers::IndexedSelectorKeys(stores_.pools);
  keys.merge(controllers::SelectorKeys(pool.spec.node_selector));
  return stores_.node_labels.Covers(keys);
}

StatusOr<runtime::Result> GatewayPoolReconciler::Pass(const k8s::JsonObject& object,
                                                      const crd::GatewayPool& pool) {
  if (!NodeCacheCovers(pool)) return runtime::Result{controllers::kNodeCacheWait};
  const PoolSnapshot snapshot = Snapshot(object, pool);
  for (const auto& [kind, objects] : snapshot.owned.look_alikes)
    controllers::RecordLookAlikes(events_, object, kind, OwnerOf(pool), objects);
  PoolInputs inputs = DecidePool(snapshot, render_);
  if (const std::optional<Track>& track = inputs.status.decision.track)
    ValidateNewGateways(pool, *track, inputs.status.selected, inputs.upgrade);
  PoolPlan plan = PlanPool(snapshot, std::move(inputs));
  RDMASTACK_RETURN_IF_ERROR(ApplyNodeWrites(object, plan.nodes, plan.inputs.upgrade.now));
  for (const runtime::ObjectPtr& pod : plan.pod_deletions)
    RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::Pod(), pod));
  if (plan.waits_on_publish) RDMASTACK_RETURN_IF_ERROR(PublishThenReplan(object, snapshot, plan));
  observed_.Sweep(object.Key());
  // A failed write does not hold the status back: it is written with what is known, and the
  // error is retried.
  const Status synced =
      ApplyWorkloads(pool, PlanWorkloads(snapshot, plan.inputs, plan.upgrade), nullptr);
  const int64_t wake_after_s = plan.upgrade.wake_after_s;
  return PublishStatus(object, pool, PoolStatusOf(std::move(plan)), wake_after_s, synced);
}

PoolSnapshot GatewayPoolReconciler::Snapshot(const k8s::JsonObject& object,
                                             const crd::GatewayPool& pool) {
  const std::string ns(object.Namespace());
  PoolSnapshot s;
  s.pool = &pool;
  s.now = clock_.WallNow();
  // Rounded up: a drain never ends before drainSeconds of answers.
  s.api_answering_since =
      std::chrono::ceil<std::chrono::seconds>(api_.AnsweringSince().time_since_epoch()).count();
  if (auto matrix = compatibility_.Current(); matrix.ok()) {
    s.matrix = std::move(*matrix);
  } else {
    s.matrix_error = std::string(matrix.status().message());
  }
  s.conflict = FindConflict(pool, s.matrix.get());
  s.unserved = controllers::CheckNamespace(render_.node_pods.tenancy, ns, "GatewayPool");
  if (!s.unserved) {
    s.credentials = controllers::CheckCredentialsSecret(
        stores_.secrets, ns, pool.spec.s3.credentials_secret, "s3.credentialsSecret");
    if (s.credentials.state == SecretState::kPresent && pool.spec.s3.tls_secret) {
      s.tls = controllers::CheckSecretKeys(stores_.secrets, ns, pool.spec.s3.tls_secret->name,
                                           {kTlsCertKey, kTlsKeyKey, kTlsCaKey}, "s3.tlsSecret");
    }
  }
  s.owned = Collect(pool);
  const int64_t now_s =
      std::chrono::duration_cast<std::chrono::seconds>(s.now.time_since_epoch()).count();
  // The pool's key and annotation keys, built once per pass rather than per node.
  const std::string pool_key = object.Key();
  const PoolAnnotationKeys keys{NodeUpgradeAnnotation(ns, pool.metadata.name),
                                NodeMaintenanceAnnotation(ns, pool.metadata.name)};
  controllers::ForEachNode(stores_.nodes, stores_.rdmanodes, pool.spec.node_selector,
                           [&](controllers::NodeView& view) {
                             s.nodes.push_back(ReadNode(pool_key, keys, view, now_s));
                           });
  return s;
}

PoolNode GatewayPoolReconciler::ReadNode(const std::string& key, const PoolAnnotationKeys& keys,
                                         controllers::NodeView& view, int64_t now) {
  const std::string& state_key = keys.upgrade;
  const std::string& maintenance_key = keys.maintenance;
  PoolNode n;
  n.object = view.object;
  n.name = view.name;
  n.resource_version = std::string(view.object->ResourceVersion());
  n.marks = {view.labels, view.object->Annotation(state_key),
             view.object->Annotation(maintenance_key)};
  // This process's last patch of the node may not have reached the cache yet: plan from what the
  // server has.
  if (auto unseen = writer().UnseenNodePatch(n.name, n.resource_version)) {
    if (auto patch = k8s::JsonObject::Parse(*unseen); patch.ok()) {
      for (const std::string& key : patch->Keys({"metadata", "labels"})) {
        if (auto v = patch->GetString({"metadata", "labels", key})) {
          n.marks.labels[key] = *v;
        } else {
          n.marks.labels.erase(key);
        }
      }
      for (auto [key, value] : {std::pair{&state_key, &n.marks.state},
                                std::pair{&maintenance_key, &n.marks.maintenance}}) {
        if (patch->Has({"metadata", "annotations", *key}))
          *value = patch->GetString({"metadata", "annotations", *key});
      }
    }
  }
  n.selected = view.selected;
  if (!n.selected) return n;
  n.unschedulable = view.object->GetBool({"spec", "unschedulable"}).value_or(false);
  n.report = std::move(view.report);
  ReadStamps(key, now, n);
  return n;
}

void GatewayPoolReconciler::ReadStamps(const std::string& key, int64_t now, PoolNode& n) {
  if (n.marks.state) {
    auto parsed = ParseNodeUpgradeState(*n.marks.state);
    if (parsed.ok()) {
      n.upgrade = std::move(*parsed);
      n.count_since = observed_.CountFrom(key, n.name + "/since", n.upgrade->since, now);
      n.count_started = observed_.CountFrom(key, n.name + "/started", n.upgrade->started, now);
    } else {
      spdlog::warn("gatewaypool {}: node {}: {}; starting it over", key, n.name,
                   parsed.status().message());
    }
  }
  if (n.marks.maintenance) {
    auto parsed = ParseMaintenanceState(*n.marks.maintenance);
    if (parsed.ok()) {
      n.maintenance = std::move(*parsed);
      n.maintenance_count_since =
          observed_.CountFrom(key, n.name + "/maintenance", n.maintenance->since, now);
    } else {
      spdlog::warn("gatewaypool {}: node {}: {}; its maintenance starts over", key, n.name,
                   parsed.status().message());
    }
  }
}

Status GatewayPoolReconciler::ApplyNodeWrites(const k8s::JsonObject& object, const NodeWrites& w,
                                              int64_t now) {
  // Stamps set in this step are seen as they are written (first_observed.h).
  for (const WrittenStamp& stamp : w.stamps)
    observed_.CountFrom(object.Key(), stamp.key, stamp.stamp, now);
  for (const PlannedEvent& e : w.events)
    events_.RecordRelated(object, *e.node, e.type, e.reason, e.action, e.message);
  std::vector<std::pair<std::string, std::string>> patches;
  std::vector<std::pair<std::string, std::string>> starts;
  for (const NodePatch& p : w.patches) {
    k8s::JsonBuilder body(p.body);
    // A deposed leader's write that arrives late fails with a conflict on the successor's instead
    // of undoing it: the node must be as this pass read it, or as this process's own last patch
    // left it.
    if (p.moves_state) {
      body.SetString({"metadata", "resourceVersion"},
                     writer().ExpectedNodeVersion(p.node, p.resource_version));
    }
    std::string text = body.object().Serialize();
    if (writer().NodePatchPending(p.node, text, p.resource_version)) continue;
    (p.starts ? starts : patches).emplace_back(p.node, std::move(text));
  }
  // A start spends budget that another node's step may have freed (Done, Failed): written
  // together, a lost write of that step (an API server going away mid-pass) would leave the node
  // in flight beside the started one, over maxParallel. So starts go only once every other step is
  // written; after a failure they wait for the next pass.
  RDMASTACK_RETURN_IF_ERROR(writer().PatchNodes(patches, kLabelWriters));
  return writer().PatchNodes(starts, kLabelWriters);
}

// Nodes that moved to Switch wait only for their new endpoint: publish it now (the slices that
// gain ready endpoints, which ApplyWorkloads writes first anyway) and, once the API server took
// those writes, plan again as the next pass would when they came back through the watch. The
// chained steps are written before the slices that lose endpoints, in the usual order.
Status GatewayPoolReconciler::PublishThenReplan(const k8s::JsonObject& object,
                                                const PoolSnapshot& snapshot, PoolPlan& plan) {
  std::map<std::string, std::set<std::string>> gained;
  const Status published =
      ApplyWorkloads(*snapshot.pool, PlanWorkloads(snapshot, plan.inputs, plan.upgrade), &gained);
  if (!published.ok() || gained.empty()) return OkStatus();
  const NodeWrites chained = PlanAfterPublish(snapshot, plan, gained);
  return ApplyNodeWrites(object, chained, plan.inputs.upgrade.now);
}

StatusOr<runtime::Result> GatewayPoolReconciler::PublishStatus(const k8s::JsonObject& object,
                                                               const crd::GatewayPool& pool,
                                                               const crd::GatewayPoolStatus& status,
                                                               int64_t wake_after_s,
                                                               const Status& synced) {
  runtime::Result result;
  const Clock::TimePoint now = clock_.Now();
  Clock::Duration since_written = Clock::Duration::max();
  {
    std::lock_guard<std::mutex> lock(status_mu_);
    if (auto it = status_written_.find(object.Key()); it != status_written_.end())
      since_written = now - it->second;
  }
  const Clock::Duration hold =
      StatusHoldBack(pool.status, status, since_written, kUpgradeStatusInterval);
  if (hold > Clock::Duration::zero()) {
    RDMASTACK_RETURN_IF_ERROR(synced);
    result.requeue_after = hold;  // the status is written then, if nothing comes sooner
  } else {
    RDMASTACK_RETURN_IF_ERROR(status_writer().Publish(object, pool, status, synced));
    std::lock_guard<std::mutex> lock(status_mu_);
    status_written_[object.Key()] = now;
  }
  if (wake_after_s > 0) {
    const Clock::Duration wake = std::chrono::seconds(wake_after_s);
    if (result.requeue_after == Clock::Duration::zero() || wake < result.requeue_after)
      result.requeue_after = wake;
  }
  return result;
}

void GatewayPoolReconciler::ValidateNewGateways(const crd::GatewayPool& pool, const Track& track,
                                                const std::vector<SelectedNode>& selected,
                                                UpgradeInputs& up) {
  std::vector<size_t> wanted;
  for (size_t i = 0; i < up.nodes.size(); ++i) {
    if (NeedsValidation(up.nodes[i], up)) wanted.push_back(i);
  }
  if (wanted.empty()) return;
  const std::vector<Rail> rails = RailsOf(pool.spec, track);
  const VerdictsByNode verdicts = IndexVerdicts(selected);
  const std::string ns = pool.metadata.namespace_.value_or("");
  const auto& ref = pool.spec.s3.credentials_secret;
  ValidationTarget base;
  base.region = pool.spec.s3.region;
  base.tls = pool.spec.s3.tls_secret.has_value();
  std::string failure;
  if (validator_.NeedsCredentials()) {
    // Read when needed and not cached: the keys stay in the operator only for this check. The
    // CA is public, but its Secret also holds the gateways' key: read the same way.
    auto keys = controllers::ReadSecretValues(client_, ns, ref.name,
                                              {ref.access_key_id_key, ref.secret_access_key_key});
    if (keys.ok()) {
      base.access_key_id = std::move((*keys)[0]);
      base.secret_access_key = std::move((*keys)[1]);
    } else {
      failure = std::string(keys.status().message());
    }
    if (failure.empty() && base.tls) {
      auto ca =
          controllers::ReadSecretValues(client_, ns, pool.spec.s3.tls_secret->name, {kTlsCaKey});
      if (ca.ok()) {
        base.ca_pem = std::move((*ca)[0]);
      } else {
        failure = std::string(ca.status().message());
      }
    }
  }
  controllers::ParallelFor(wanted.size(), kLabelWriters, [&](size_t w) {
    UpgradeNode& n = up.nodes[wanted[w]];
    if (!failure.empty()) {
      n.validation = Validation{false, crd::reasons::kCredentialsUnavailable, failure};
      return;
    }
    const controllers::OwnedPod& pod = n.pods.at(up.target);
    ValidationTarget t = base;
    t.ip = pod.ip;
    // Every rail that serves on the node answers before clients move to it; a rail the agent
    // reports down (RailDown) is withdrawn from its slices already and does not hold the node.
    n.validation = Validation{true, "", ""};
    for (const Rail& rail : rails) {
      if (!RailServesOn(verdicts, n.name, rail.name)) continue;
      t.port = rail.s3_port;
      Validation v = validator_.Validate(t);
      if (!v.ok && !rail.name.empty()) {
        v.message =
            "rail " + rail.name + " (port " + std::to_string(rail.s3_port) + "): " + v.message;
      }
      n.validation = std::move(v);
      if (!n.validation->ok) break;
    }
  });
}

Status GatewayPoolReconciler::ApplyWorkloads(const crd::GatewayPool& pool, const WorkloadWrites& w,
                                             std::map<std::string, std::set<std::string>>* gained) {
  const controllers::Owner owner = OwnerOf(pool);
  if (gained == nullptr && w.daemonset) {
    RDMASTACK_RETURN_IF_ERROR(controllers::CheckNameFree(stores_.daemonsets, owner, "DaemonSet",
                                                         std::string(w.daemonset->desired.Name())));
    RDMASTACK_RETURN_IF_ERROR(writer().ApplyIfChanged(k8s::kinds::DaemonSet(), w.daemonset->desired,
                                                      w.daemonset->existing));
  }
  if (gained == nullptr && w.service) {
    RDMASTACK_RETURN_IF_ERROR(controllers::CheckNameFree(stores_.services, owner, "Service",
                                                         ServiceName(pool.metadata.name)));
    RDMASTACK_RETURN_IF_ERROR(
        writer().ApplyIfChanged(k8s::kinds::Service(), w.service->desired, w.service->existing));
  }
  for (const auto* writes : {&w.gaining, &w.rest}) {
    for (const ObjectWrite& slice : *writes)
      RDMASTACK_RETURN_IF_ERROR(controllers::CheckNameFree(stores_.slices, owner, "EndpointSlice",
                                                           std::string(slice.desired.Name())));
  }
  if (gained != nullptr) {
    // Only the slices that gain ready endpoints, and which nodes are now published where.
    for (const ObjectWrite& slice : w.gaining) {
      RDMASTACK_RETURN_IF_ERROR(
          writer().ApplyIfChanged(k8s::kinds::EndpointSlice(), slice.desired, slice.existing));
      const std::string t = slice.desired.Label(kTrackLabel).value_or("");
      for (const auto& node : ReadyNodes(slice.desired)) (*gained)[node].insert(t);
    }
    return OkStatus();
  }
  for (const auto* writes : {&w.gaining, &w.rest}) {
    for (const ObjectWrite& slice : *writes)
      RDMASTACK_RETURN_IF_ERROR(
          writer().ApplyIfChanged(k8s::kinds::EndpointSlice(), slice.desired, slice.existing));
  }
  for (const auto& slice : w.unwanted_slices)
    RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::EndpointSlice(), slice));
  for (const auto& [daemonset, slices] : w.retired) {
    RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::DaemonSet(), daemonset));
    for (const auto& slice : slices)
      RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::EndpointSlice(), slice));
  }
  return OkStatus();
}

StatusOr<runtime::Result> GatewayPoolReconciler::Cleanup(const k8s::JsonObject& object,
                                                         const crd::GatewayPool& pool) {
  const std::string ns = pool.metadata.namespace_.value_or("");
  const std::string& name = pool.metadata.name;
  const PoolObjects owned = Collect(pool);
  // Clients first (the endpoints go), then the gateways: deleting the DaemonSets lets each pod
  // end within its grace period. The backend directories are never touched.
  for (const auto& s : owned.slices)
    RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::EndpointSlice(), s));
  RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::Service(), owned.service));
  for (const auto& d : owned.daemonsets)
    RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::DaemonSet(), d));

  const IamCleanupPlan plan = PlanPoolIamCleanup(pool, owned);
  RDMASTACK_RETURN_IF_ERROR(ApplyIamCleanup(object, pool, owned, plan));
  auto nodes_left = ReleaseNodes(pool, plan);
  if (!nodes_left.ok()) return nodes_left.status();
  if (*nodes_left > 0) {
    spdlog::info("gatewaypool {}/{}: deleting; waiting for the IAM directory to leave {} node(s)",
                 ns, name, *nodes_left);
    // Pods turning Ready wake the pool; the time limit needs the clock.
    return runtime::Result{.requeue_after = std::chrono::seconds(10)};
  }
  RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::DaemonSet(), owned.iam_cleanup));
  RDMASTACK_RETURN_IF_ERROR(
      writer().RemoveFinalizer(crd::kinds::GatewayPool(), object, kFinalizer));
  status_writer().Forget(object.Key());
  observed_.Forget(object.Key());
  {
    std::lock_guard<std::mutex> lock(status_mu_);
    status_written_.erase(object.Key());
  }
  spdlog::info(
      "gatewaypool {}/{}: deleted its gateways, endpoints, IAM directory, node labels, upgrade and "
      "maintenance state",
      ns, name);
  return runtime::Result{};
}

// The IAM directory leaves each node its gateways ran on (iam_cleanup.h); that node's track
// labels stay until then, since the cleanup pods select on them.
IamCleanupPlan GatewayPoolReconciler::PlanPoolIamCleanup(const crd::GatewayPool& pool,
                                                         const PoolObjects& owned) const {
  std::map<std::string, bool> cleanup_ready;  // node -> its cleanup pod is Ready
  for (const controllers::OwnedPod& p : controllers::ReadPods(owned.iam_cleanup_pods, "remove-dir"))
    cleanup_ready[p.node] = cleanup_ready[p.node] || (p.ready && !p.terminating);
  const bool timed_out = [&] {
    auto deleted = ParseRfc3339(pool.metadata.deletion_timestamp.value_or(""));
    return !deleted.ok() || clock_.WallNow() >= *deleted + kIamCleanupTimeout;
  }();
  NodeTrackLabelMatcher is_track_label(pool.metadata.namespace_.value_or(""), pool.metadata.name);
  std::vector<IamCleanupNode> iam_nodes;
  for (const auto& node : stores_.nodes.List()) {
    IamCleanupNode n{std::string(node->Name()), {}, false};
    for (const auto& [key, value] : node->Labels()) {
      if (is_track_label(key)) n.track_labels.insert(key);
    }
    n.pod_ready = cleanup_ready[n.name];
    iam_nodes.push_back(std::move(n));
  }
  return PlanIamCleanup(iam_nodes, timed_out);
}

Status GatewayPoolReconciler::ApplyIamCleanup(const k8s::JsonObject& object,
                                              const crd::GatewayPool& pool,
                                              const PoolObjects& owned,
                                              const IamCleanupPlan& plan) {
  const std::string ns = pool.metadata.namespace_.value_or("");
  const std::string& name = pool.metadata.name;
  if (plan.waiting) {
    RDMASTACK_RETURN_IF_ERROR(controllers::CheckNameFree(
        stores_.daemonsets, OwnerOf(pool), "DaemonSet", IamCleanupDaemonSetName(name)));
    RDMASTACK_RETURN_IF_ERROR(writer().ApplyIfChanged(
        k8s::kinds::DaemonSet(), RenderIamCleanupDaemonSet(pool, plan.label_keys, render_),
        owned.iam_cleanup));
  }
  if (plan.abandoned.empty()) return OkStatus();
  std::string nodes;
  for (size_t i = 0; i < plan.abandoned.size() && i < kMaxIamCleanupListed; ++i)
    nodes += (i ? ", " : "") + plan.abandoned[i];
  if (plan.abandoned.size() > kMaxIamCleanupListed)
    nodes += " and " + std::to_string(plan.abandoned.size() - kMaxIamCleanupListed) + " more";
  events_.Record(object, runtime::EventType::kWarning, "IamCleanupIncomplete", "Cleanup",
                 "no cleanup pod was Ready within " + std::to_string(kIamCleanupTimeout.count()) +
                     " s on " + nodes + "; " +
                     IamHostDir(ns, name, pool.metadata.uid.value_or("")) +
                     " stays there (the pool's S3 users); remove it by hand");
  return OkStatus();
}

// The pool's track labels (of cleaned or given-up nodes) and its upgrade and maintenance
// annotations leave the nodes. Returns how many nodes still carry a track label.
StatusOr<size_t> GatewayPoolReconciler::ReleaseNodes(const crd::GatewayPool& pool,
                                                     const IamCleanupPlan& plan) {
  const std::string ns = pool.metadata.namespace_.value_or("");
  const std::string& name = pool.metadata.name;
  NodeTrackLabelMatcher is_track_label(ns, name);
  const std::set<std::string> release(plan.cleaned.begin(), plan.cleaned.end());
  const std::set<std::string> given_up(plan.abandoned.begin(), plan.abandoned.end());
  std::vector<std::pair<std::string, std::string>> unlabel;
  const std::array<std::string, 2> annotations = {NodeUpgradeAnnotation(ns, name),
                                                  NodeMaintenanceAnnotation(ns, name)};
  size_t labelled = 0;
  for (const auto& node : stores_.nodes.List()) {
    const std::string node_name(node->Name());
    const bool keep = !release.contains(node_name) && !given_up.contains(node_name);
    k8s::JsonBuilder patch;
    bool changed = false;
    if (keep) {
      labelled += std::ranges::any_of(node->Labels(),
                                      [&](const auto& l) { return is_track_label(l.first); });
    } else {
      changed = controllers::AddMetadataMapPatch("labels", node->Labels(), {},
                                                 std::ref(is_track_label), &patch);
    }
    for (const std::string& key : annotations) {
      if (!node->Annotation(key)) continue;
      patch.SetNull({"metadata", "annotations", key});
      changed = true;
    }
    if (changed) unlabel.emplace_back(node_name, patch.object().Serialize());
  }
  RDMASTACK_RETURN_IF_ERROR(writer().PatchNodes(unlabel, kLabelWriters));
  return labelled;
}

}  // namespace rdmastack::gatewaypool
