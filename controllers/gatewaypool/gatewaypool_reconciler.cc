#include "controllers/gatewaypool/gatewaypool_reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>

#include "base/duration.h"
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
#include "controllers/gatewaypool/pool_host_policy.h"
#include "controllers/gatewaypool/pool_index.h"
#include "crds/types/json.h"
#include "crds/types/kinds.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/config.h"
#include "operator/k8s/json_builder.h"

namespace rdmastack::gatewaypool {
namespace {

// What the pool's controller references name (owned_objects.h); its label only selects.
controllers::Owner OwnerOf(const crd::GatewayPool& pool) {
  return controllers::OwnerOf(pool.metadata, kPoolLabel);
}

// The first image or host directory of the pool the admin's policy refuses, as its message.
std::optional<std::string> NotAllowed(const controllers::TenancyPolicy& policy,
                                      const crd::GatewayPool& pool) {
  const std::string ns = pool.metadata.namespace_.value_or("");
  if (auto m = controllers::CheckImage(policy, ns, "gateway.image", pool.spec.gateway.image))
    return m;
  if (auto m = controllers::CheckImage(policy, ns, "serverLibrary.image",
                                       pool.spec.server_library.image))
    return m;
  return controllers::CheckBackendPath(policy, ns, "backend.posix.hostPath",
                                       pool.spec.backend.posix.host_path);
}

// The condition changes a human should hear of.
std::vector<controllers::ConditionEvent> ConditionEvents() {
  using crd::ConditionStatus;
  using runtime::EventType;
  return {{kLibraryCompatible, ConditionStatus::kFalse, EventType::kWarning, "Refuse"},
          {kDegraded, ConditionStatus::kTrue, EventType::kWarning, "Degrade", "SpecRefused"},
          {kNodesVerified, ConditionStatus::kFalse, EventType::kWarning, "Verify"},
          {kReady, ConditionStatus::kTrue, EventType::kNormal, "Ready"}};
}

std::string ServingNodes(const crd::GatewayPoolStatus& s) {
  return "nodes " + (s.node_counts ? s.node_counts->ready_of_selected : "");
}

}  // namespace

struct GatewayPoolReconciler::Owned {
  std::vector<runtime::ObjectPtr> daemonsets;  // the gateways'
  runtime::ObjectPtr iam_cleanup;              // only while the pool is being deleted
  std::vector<runtime::ObjectPtr> iam_cleanup_pods;
  std::vector<runtime::ObjectPtr> slices;
  runtime::ObjectPtr service;
  std::vector<controllers::OwnedPod> pods;
  std::vector<runtime::ObjectPtr> pod_objects;  // the same pods, for their deletion
  // Objects with the pool's label that are not its own, by kind: ignored, named in events.
  std::vector<std::pair<const char*, std::vector<runtime::ObjectPtr>>> look_alikes;
};

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

GatewayPoolReconciler::Owned GatewayPoolReconciler::Collect(const crd::GatewayPool& pool) const {
  const controllers::Owner owner = OwnerOf(pool);
  Owned owned;
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
    auto add = [&f](const Track& t) {
      f.ports.insert(t.s3_port);
      f.ports.insert(t.rdma_port);
    };
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

StatusOr<runtime::Result> GatewayPoolReconciler::Pass(const k8s::JsonObject& object,
                                                      const crd::GatewayPool& pool) {
  const std::string ns(object.Namespace());
  const std::string& name = pool.metadata.name;
  // Nothing is decided until the Node cache holds the label keys this pool's selector and the
  // other pools' (FindConflict matches them all) name: until its re-list is in, a node carrying
  // such a key looks unselected, and the status would drop it (node_label_filter.h).
  std::set<std::string> keys = controllers::IndexedSelectorKeys(stores_.pools);
  keys.merge(controllers::SelectorKeys(pool.spec.node_selector));
  if (!stores_.node_labels.Covers(keys)) return runtime::Result{controllers::kNodeCacheWait};
  const Owned owned = Collect(pool);
  for (const auto& [kind, objects] : owned.look_alikes)
    controllers::RecordLookAlikes(events_, object, kind, OwnerOf(pool), objects);

  // Decide: compatibility first, then the Secret; nothing new starts unless both pass.
  PoolStatusInputs in;
  in.pool = &pool;
  in.now = clock_.WallNow();
  const auto matrix = compatibility_.Current();
  if (!matrix.ok()) {
    in.decision.reason = "CompatibilityDataInvalid";
    in.decision.message = std::string(matrix.status().message());
  } else {
    in.decision = DecideTrack(pool.spec, **matrix);
  }
  // What the admin lets a pool take on a host: tolerations and the new track's host ports.
  if (auto refused = CheckPoolHostPolicy(render_.node_pods.tenancy, pool.spec, in.decision.track)) {
    in.decision.track.reset();
    in.decision.reason = std::move(refused->reason);
    in.decision.message = std::move(refused->message);
  }
  // What the admin allows: a refused image or host directory starts nothing (what serves stays).
  if (auto refused = NotAllowed(render_.node_pods.tenancy, pool)) {
    in.decision.track.reset();
    in.decision.reason = controllers::kReasonNotAllowed;
    in.decision.message = std::move(*refused);
  }
  // A namespace the operator does not serve: its RBAC reaches neither the Secrets nor what the
  // pool would own there, so nothing is started, checked or written in it.
  const std::optional<std::string> unserved =
      controllers::CheckNamespace(render_.node_pods.tenancy, ns, "GatewayPool");
  if (unserved) {
    in.decision.track.reset();
    in.decision.reason = controllers::kReasonNamespaceNotServed;
    in.decision.message = *unserved;
  }
  // An older pool's ports or gateway root on a shared node: this one starts nothing.
  in.conflict = FindConflict(pool, matrix.ok() ? matrix->get() : nullptr);
  std::optional<k8s::JsonObject> daemonset;
  if (in.decision.track) {
    if (auto rendered = RenderGatewayDaemonSet(pool, *in.decision.track, render_); rendered.ok()) {
      daemonset = std::move(*rendered);
    } else {
      in.decision.track.reset();
      in.decision.reason = "InvalidSpec";
      in.decision.message = std::string(rendered.status().message());
    }
  }
  const controllers::SecretCheck secret =
      unserved ? controllers::SecretCheck{}
               : controllers::CheckCredentialsSecret(
                     stores_.secrets, ns, pool.spec.s3.credentials_secret, "s3.credentialsSecret");
  in.secret = secret.state;
  in.secret_message = secret.message;
  if (secret.state == SecretState::kPresent && pool.spec.s3.tls_secret) {
    const controllers::SecretCheck tls = controllers::CheckSecretKeys(
        stores_.secrets, pool.metadata.namespace_.value_or(""), pool.spec.s3.tls_secret->name,
        {kTlsCertKey, kTlsKeyKey, kTlsCaKey}, "s3.tlsSecret");
    if (tls.state != SecretState::kPresent) {
      in.secret = tls.state;
      in.secret_message = tls.message;
      in.secret_reason = "TlsSecretMissing";
    }
  }
  const bool may_start = in.decision.track.has_value() && in.secret == SecretState::kPresent &&
                         !in.conflict.has_value();
  const std::optional<Track>& track = in.decision.track;
  in.pods = owned.pods;

  // Every track the pool still runs, by name: the spec's, and those its DaemonSets record.
  std::map<std::string, Track> tracks;
  for (const auto& d : owned.daemonsets) {
    auto t = ParseTrack(d->Annotation(kTrackSpecAnnotation).value_or(""));
    if (t.ok()) tracks[t->name] = *t;
  }
  UpgradeInputs up;
  up.spec = pool.spec.upgrade;
  up.now = std::chrono::duration_cast<std::chrono::seconds>(in.now.time_since_epoch()).count();
  // Rounded up: a drain never ends before drainSeconds of answers.
  up.api_answering_since =
      std::chrono::ceil<std::chrono::seconds>(api_.AnsweringSince().time_since_epoch()).count();
  up.may_start = may_start;
  if (auto timeout = ParseDuration(pool.spec.upgrade.validation_timeout); timeout.ok())
    up.validation_timeout_s = std::max<int64_t>(1, timeout->count() / 1000);
  if (track) {
    up.target = track->name;
    up.target_hash =
        daemonset->GetString({"spec", "template", "metadata", "labels", kTemplateHashLabel})
            .value_or("");
    for (const auto& [name, other] : tracks) {
      if (name == track->name) continue;
      if (other.s3_port == track->s3_port || other.rdma_port == track->rdma_port ||
          other.s3_port == track->rdma_port || other.rdma_port == track->s3_port)
        up.port_conflict = "track " + track->name + " would use ports " +
                           std::to_string(track->s3_port) + "/" + std::to_string(track->rdma_port) +
                           " that track " + name + " still holds on its nodes; give the new " +
                           "version its own s3.port and rdma.port (or leave them unset)";
    }
    tracks[track->name] = *track;
  }
  std::map<std::string, std::set<std::string>> published;  // node -> tracks it is ready on
  for (const auto& slice : owned.slices) {
    const std::string t = slice->Label(kTrackLabel).value_or("");
    for (const auto& node : ReadyNodes(*slice)) published[node].insert(t);
  }
  const controllers::PodsByNode pods_by_node =
      controllers::GroupByNode(owned.pods, [](const controllers::OwnedPod& p) { return p.track; });

  // Nodes: which the selector matches, which can run the gateway, which carry our labels.
  const std::string state_key = NodeUpgradeAnnotation(ns, name);
  NodeTrackLabelMatcher is_mine(ns, name);
  const std::string maintenance_key = NodeMaintenanceAnnotation(ns, name);
  struct NodeNow {
    runtime::ObjectPtr object;
    std::string name, resource_version;
    crd::StringMap labels;
    std::optional<std::string> state;
    std::optional<std::string> maintenance;  // the annotation as it is
  };
  std::vector<NodeNow> planned;                                   // in up.nodes order
  std::vector<std::pair<std::string, std::string>> node_patches;  // node, merge patch
  // Nodes whose move starts in this pass, written after every other node's step (below).
  std::vector<std::pair<std::string, std::string>> start_patches;
  auto patch_node = [&](const NodeNow& n, const std::set<std::string>& want_tracks,
                        const std::optional<NodeUpgradeState>& want_state,
                        const std::optional<std::string>& want_maintenance, bool starts = false) {
    std::map<std::string, std::string> want;
    for (const auto& t : want_tracks) want[NodeTrackLabel(ns, name, t)] = "true";
    k8s::JsonBuilder patch;
    bool changed =
        controllers::AddMetadataMapPatch("labels", n.labels, want, std::ref(is_mine), &patch);
    bool state_changed = false;
    auto annotate = [&](const std::string& key, const std::optional<std::string>& value,
                        const std::optional<std::string>& now) {
      if (value == now) return;
      if (value) {
        patch.SetString({"metadata", "annotations", key}, *value);
      } else {
        patch.SetNull({"metadata", "annotations", key});
      }
      changed = state_changed = true;
    };
    annotate(state_key,
             want_state ? std::optional<std::string>(SerializeNodeUpgradeState(*want_state))
                        : std::nullopt,
             n.state.value_or("").empty() ? std::nullopt : n.state);
    annotate(maintenance_key, want_maintenance, n.maintenance);
    if (!changed) return;
    // A patch that moves the node's upgrade or maintenance state holds only while the node is as
    // this pass read it (or as this process's own last patch left it): a deposed leader's write
    // that arrives late fails with a conflict on the successor's instead of undoing it.
    if (state_changed) {
      patch.SetString({"metadata", "resourceVersion"},
                      writer().ExpectedNodeVersion(n.name, n.resource_version));
    }
    std::string body = patch.object().Serialize();
    if (writer().NodePatchPending(n.name, body, n.resource_version)) return;
    (starts ? start_patches : node_patches).push_back({n.name, std::move(body)});
  };
  controllers::ForEachNode(
      stores_.nodes, stores_.rdmanodes, pool.spec.node_selector, [&](controllers::NodeView& node) {
        NodeNow n{node.object,
                  node.name,
                  std::string(node.object->ResourceVersion()),
                  node.labels,
                  node.object->Annotation(state_key),
                  node.object->Annotation(maintenance_key)};
        // This process's last patch of the node may not have reached the cache yet (an informer
        // relisting after an API server restart lags by seconds). Plan from what the server has:
        // from the stale node a second pass would start the same move again, with a new start.
        if (auto unseen = writer().UnseenNodePatch(n.name, n.resource_version)) {
          if (auto patch = k8s::JsonObject::Parse(*unseen); patch.ok()) {
            for (const std::string& key : patch->Keys({"metadata", "labels"})) {
              if (auto v = patch->GetString({"metadata", "labels", key})) {
                n.labels[key] = *v;
              } else {
                n.labels.erase(key);
              }
            }
            for (auto [key, value] :
                 {std::pair{&state_key, &n.state}, std::pair{&maintenance_key, &n.maintenance}}) {
              if (patch->Has({"metadata", "annotations", *key}))
                *value = patch->GetString({"metadata", "annotations", *key});
            }
          }
        }
        std::set<std::string> mine;
        for (const auto& [k, v] : n.labels) {
          if (is_mine(k)) mine.insert(k.substr(k.rfind('.') + 1));
        }
        if (!node.selected) {
          if (!mine.empty() || n.state || n.maintenance)  // left the pool
            patch_node(n, {}, std::nullopt, std::nullopt);
          return;
        }
        NodeVerdict verdict =
            VerifyNode(pool.spec, NodeInput{n.name, n.labels, std::move(node.report)});
        UpgradeNode u;
        u.name = n.name;
        u.eligible = controllers::KeepsWorkload(
            verdict.verified, track && mine.count(track->name) != 0, verdict.reason);
        u.tracks = mine;
        if (n.state) {
          auto parsed_state = ParseNodeUpgradeState(*n.state);
          if (parsed_state.ok()) {
            u.state = std::move(*parsed_state);
            u.count_since =
                observed_.CountFrom(object.Key(), n.name + "/since", u.state->since, up.now);
            u.count_started =
                observed_.CountFrom(object.Key(), n.name + "/started", u.state->started, up.now);
          } else {
            spdlog::warn("gatewaypool {}: node {}: {}; starting it over", object.Key(), n.name,
                         parsed_state.status().message());
          }
        }
        if (auto it = pods_by_node.find(n.name); it != pods_by_node.end()) u.pods = it->second;
        if (auto it = published.find(n.name); it != published.end()) u.published = it->second;
        MaintenanceInput m{
            MaintenanceCause(node.object->GetBool({"spec", "unschedulable"}).value_or(false),
                             n.labels),
            std::nullopt, mine, u.published};
        if (pool.spec.node_maintenance == crd::NodeMaintenancePolicy::kIgnore) m.cause.clear();
        if (n.maintenance) {
          auto parsed_maintenance = ParseMaintenanceState(*n.maintenance);
          if (parsed_maintenance.ok()) {
            m.state = std::move(*parsed_maintenance);
            m.count_since =
                observed_.CountFrom(object.Key(), n.name + "/maintenance", m.state->since, up.now);
          } else {
            spdlog::warn("gatewaypool {}: node {}: {}; its maintenance starts over", object.Key(),
                         n.name, parsed_maintenance.status().message());
          }
        }
        u.maintenance =
            StepMaintenance(m, {up.now, pool.spec.upgrade.drain_seconds, up.api_answering_since});
        in.selected.push_back({n.name, std::move(verdict)});
        up.nodes.push_back(std::move(u));
        planned.push_back(std::move(n));
      });
  if (track) ValidateNewGateways(pool, track->s3_port, up);
  UpgradePlan plan = PlanUpgrade(up);
  // A refused spec changes nothing on a node, its maintenance record included.
  const bool planned_now = up.may_start && !up.target.empty();
  auto maintenance_wanted = [&](size_t i, const NodeDecision& d) {
    const std::optional<MaintenanceState>& m = d.maintenance.state;
    return !planned_now ? planned[i].maintenance
           : m          ? std::optional<std::string>(SerializeMaintenanceState(*m))
                        : std::nullopt;
  };
  auto record_transition = [&](size_t i, const NodeDecision& d) {
    if (d.transition.empty()) return;
    // Related to the node: each node's transitions are a series of their own.
    events_.RecordRelated(object, *planned[i].object,
                          d.warning ? runtime::EventType::kWarning : runtime::EventType::kNormal,
                          "Upgrade" + std::string(d.state ? PhaseName(d.state->phase) : "Pending"),
                          "Upgrade",
                          "node " + d.node + ": " + d.transition +
                              (d.state && !d.state->reason.empty() && d.warning
                                   ? " (" + d.state->reason + ": " + d.state->message + ")"
                                   : ""));
  };
  // A start spends budget that another node's step in this pass may have freed (Done, Failed):
  // written together, a lost write of that step (an API server going away mid-pass) would leave
  // the node in flight beside the started one, over maxParallel. So starts go only once every
  // other step is written; after a failure they wait for the next pass.
  auto write_nodes = [&]() -> Status {
    RDMASTACK_RETURN_IF_ERROR(writer().PatchNodes(node_patches, kLabelWriters));
    RDMASTACK_RETURN_IF_ERROR(writer().PatchNodes(start_patches, kLabelWriters));
    node_patches.clear();
    start_patches.clear();
    return OkStatus();
  };
  // Stamps set in this pass are seen as they are written (first_observed.h).
  auto observe_written = [&](const NodeDecision& d) {
    if (d.state) {
      observed_.CountFrom(object.Key(), d.node + "/since", d.state->since, up.now);
      observed_.CountFrom(object.Key(), d.node + "/started", d.state->started, up.now);
    }
    if (d.maintenance.state)
      observed_.CountFrom(object.Key(), d.node + "/maintenance", d.maintenance.state->since,
                          up.now);
  };
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const NodeDecision& d = plan.nodes[i];
    observe_written(d);
    const std::optional<NodeUpgradeState>& was = up.nodes[i].state;
    const bool starts = d.state && InFlight(*d.state) && !(was && InFlight(*was));
    patch_node(planned[i], d.tracks, d.state, maintenance_wanted(i, d), starts);
    if (planned_now && !d.maintenance.transition.empty()) {
      events_.RecordRelated(object, *planned[i].object, runtime::EventType::kNormal,
                            d.maintenance.event_reason, "Maintenance",
                            "node " + d.node + ": " + d.maintenance.transition);
    }
    record_transition(i, d);
  }
  RDMASTACK_RETURN_IF_ERROR(write_nodes());
  for (const NodeDecision& d : plan.nodes) {
    if (d.delete_pod.empty()) continue;
    // Only a pod of the pool's own DaemonSets, never a look-alike of the same name.
    for (const runtime::ObjectPtr& p : owned.pod_objects) {
      if (p->Name() == d.delete_pod)
        RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::Pod(), p));
    }
  }
  // Nodes that moved to Switch wait only for their new endpoint: publish it now (the slices that
  // gain ready endpoints, as SyncWorkloads writes first anyway) and, once the API server took
  // those writes, plan again as the next pass would when they came back through the watch. The
  // chained steps are written before the slices that lose endpoints, in the usual order.
  if (planned_now && WaitsOnPublish(up, plan)) {
    std::map<std::string, std::set<std::string>> gained;
    const Status published_now =
        SyncWorkloads(pool, in.decision, daemonset, may_start, owned, tracks, plan, &gained);
    if (published_now.ok() && !gained.empty()) {
      const UpgradeInputs after = AfterWrites(up, plan, gained);
      UpgradePlan chained = PlanUpgrade(after);
      for (size_t i = 0; i < chained.nodes.size(); ++i) {
        const NodeDecision& d = chained.nodes[i];
        const NodeDecision& before = plan.nodes[i];
        if (d.tracks == before.tracks && d.state == before.state) continue;
        observe_written(d);
        // The node as the first write left it.
        NodeNow now = planned[i];
        for (auto it = now.labels.begin(); it != now.labels.end();)
          it = is_mine(it->first) ? now.labels.erase(it) : std::next(it);
        for (const auto& t : before.tracks) now.labels[NodeTrackLabel(ns, name, t)] = "true";
        now.state = before.state
                        ? std::optional<std::string>(SerializeNodeUpgradeState(*before.state))
                        : std::nullopt;
        now.maintenance = maintenance_wanted(i, before);
        const bool starts =
            d.state && InFlight(*d.state) && !(before.state && InFlight(*before.state));
        patch_node(now, d.tracks, d.state, maintenance_wanted(i, d), starts);
        record_transition(i, d);
      }
      RDMASTACK_RETURN_IF_ERROR(write_nodes());
      plan = std::move(chained);
    }
  }
  observed_.Sweep(object.Key());
  std::sort(in.selected.begin(), in.selected.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });

  // Workloads and endpoints. A failed write does not hold the status back: it is written with
  // what is known, and the error is retried.
  const Status synced = SyncWorkloads(pool, in.decision, daemonset, may_start, owned, tracks, plan);
  in.upgrade = &plan;
  in.tracks = tracks;

  const crd::GatewayPoolStatus status = ComputePoolStatus(in);
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
  if (plan.wake_after_s > 0) {
    const Clock::Duration wake = std::chrono::seconds(plan.wake_after_s);
    if (result.requeue_after == Clock::Duration::zero() || wake < result.requeue_after)
      result.requeue_after = wake;
  }
  return result;
}

void GatewayPoolReconciler::ValidateNewGateways(const crd::GatewayPool& pool, int32_t s3_port,
                                                UpgradeInputs& up) {
  std::vector<size_t> wanted;
  for (size_t i = 0; i < up.nodes.size(); ++i) {
    if (NeedsValidation(up.nodes[i], up)) wanted.push_back(i);
  }
  if (wanted.empty()) return;
  const std::string ns = pool.metadata.namespace_.value_or("");
  const auto& ref = pool.spec.s3.credentials_secret;
  ValidationTarget base;
  base.region = pool.spec.s3.region;
  base.port = s3_port;
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
      n.validation = Validation{false, "CredentialsUnavailable", failure};
      return;
    }
    const controllers::OwnedPod& pod = n.pods.at(up.target);
    ValidationTarget t = base;
    t.ip = pod.ip;
    n.validation = validator_.Validate(t);
  });
}

Status GatewayPoolReconciler::SyncWorkloads(const crd::GatewayPool& pool,
                                            const TrackDecision& decision,
                                            const std::optional<k8s::JsonObject>& daemonset,
                                            bool may_start, const Owned& owned,
                                            const std::map<std::string, Track>& tracks,
                                            const UpgradePlan& plan,
                                            std::map<std::string, std::set<std::string>>* gained) {
  const std::string ns = pool.metadata.namespace_.value_or("");
  const std::string& name = pool.metadata.name;
  const std::optional<Track>& track = decision.track;
  auto existing_ds = [&](const std::string& ds_name) -> runtime::ObjectPtr {
    for (const auto& d : owned.daemonsets) {
      if (d->Name() == ds_name) return d;
    }
    return nullptr;
  };
  const controllers::Owner owner = OwnerOf(pool);
  if (may_start && gained == nullptr) {
    const std::string ds_name(daemonset->Name());
    RDMASTACK_RETURN_IF_ERROR(
        controllers::CheckNameFree(stores_.daemonsets, owner, "DaemonSet", ds_name));
    RDMASTACK_RETURN_IF_ERROR(
        writer().ApplyIfChanged(k8s::kinds::DaemonSet(), *daemonset, existing_ds(ds_name)));
    RDMASTACK_RETURN_IF_ERROR(
        controllers::CheckNameFree(stores_.services, owner, "Service", ServiceName(name)));
    RDMASTACK_RETURN_IF_ERROR(
        writer().ApplyIfChanged(k8s::kinds::Service(), RenderService(pool, *track), owned.service));
  }
  // Each track's slices list the nodes the plan publishes there. A refused spec leaves the
  // slices as they are (nothing serving changes).
  std::map<std::string, const NodeDecision*> decisions;
  for (const NodeDecision& d : plan.nodes) decisions[d.node] = &d;
  const std::string target = track ? track->name : "";
  // Slices that gain ready endpoints are written before those that lose some, so that a node
  // whose endpoint moves between tracks is never without a ready one in between.
  struct SliceWrite {
    k8s::JsonObject desired;
    runtime::ObjectPtr existing;
  };
  std::vector<SliceWrite> gaining, rest;
  std::vector<runtime::ObjectPtr> unwanted;
  for (const auto& [track_name, t] : tracks) {
    const bool has_ds = existing_ds(DaemonSetName(name, track_name)) != nullptr;
    if (!may_start || (!has_ds && track_name != target)) continue;
    std::vector<const k8s::JsonObject*> current;
    for (const auto& s : owned.slices) {
      if (s->Label(kTrackLabel) == track_name) current.push_back(s.get());
    }
    auto role = [&, tn = track_name](const std::string& node) {
      auto it = decisions.find(node);
      return it == decisions.end() ? EndpointRole::kAbsent : NodeRole(*it->second, tn, target);
    };
    std::set<std::string> desired_slices;
    for (auto& slice :
         RenderEndpointSlices(pool, t, owned.pods, ReadSliceAssignment(current), role)) {
      desired_slices.insert(std::string(slice.Name()));
      const std::string slice_name(slice.Name());
      RDMASTACK_RETURN_IF_ERROR(
          controllers::CheckNameFree(stores_.slices, owner, "EndpointSlice", slice_name));
      runtime::ObjectPtr existing = controllers::GetOwned(stores_.slices, owner, slice_name);
      const std::set<std::string> before =
          existing ? ReadyNodes(*existing) : std::set<std::string>{};
      bool gains = false;
      for (const auto& node : ReadyNodes(slice)) gains = gains || !before.count(node);
      (gains ? gaining : rest).push_back({std::move(slice), std::move(existing)});
    }
    for (const auto& s : owned.slices) {
      if (s->Label(kTrackLabel) == track_name && !desired_slices.count(std::string(s->Name())))
        unwanted.push_back(s);
    }
  }
  if (gained != nullptr) {
    // Only the slices that gain ready endpoints, and which nodes are now published where.
    for (const SliceWrite& w : gaining) {
      RDMASTACK_RETURN_IF_ERROR(
          writer().ApplyIfChanged(k8s::kinds::EndpointSlice(), w.desired, w.existing));
      const std::string t = w.desired.Label(kTrackLabel).value_or("");
      for (const auto& node : ReadyNodes(w.desired)) (*gained)[node].insert(t);
    }
    return OkStatus();
  }
  for (auto* writes : {&gaining, &rest}) {
    for (const SliceWrite& w : *writes)
      RDMASTACK_RETURN_IF_ERROR(
          writer().ApplyIfChanged(k8s::kinds::EndpointSlice(), w.desired, w.existing));
  }
  for (const auto& s : unwanted)
    RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::EndpointSlice(), s));
  if (may_start) {
    // Tracks the spec left, once no node runs them any more.
    std::set<std::string> tracks_still_labelled;
    for (const NodeDecision& d : plan.nodes)
      tracks_still_labelled.insert(d.tracks.begin(), d.tracks.end());
    for (const auto& d : owned.daemonsets) {
      const std::string t = d->Label(kTrackLabel).value_or("");
      if (t == track->name || tracks_still_labelled.count(t)) continue;
      RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::DaemonSet(), d));
      for (const auto& s : owned.slices) {
        if (s->Label(kTrackLabel) == t)
          RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::EndpointSlice(), s));
      }
    }
  }
  return OkStatus();
}

StatusOr<runtime::Result> GatewayPoolReconciler::Cleanup(const k8s::JsonObject& object,
                                                         const crd::GatewayPool& pool) {
  const std::string ns = pool.metadata.namespace_.value_or("");
  const std::string& name = pool.metadata.name;
  const Owned owned = Collect(pool);
  // Clients first (the endpoints go), then the gateways: deleting the DaemonSets lets each pod
  // end within its grace period. The backend directories are never touched.
  for (const auto& s : owned.slices)
    RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::EndpointSlice(), s));
  RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::Service(), owned.service));
  for (const auto& d : owned.daemonsets)
    RDMASTACK_RETURN_IF_ERROR(writer().Delete(k8s::kinds::DaemonSet(), d));

  // The IAM directory leaves each node its gateways ran on (iam_cleanup.h); that node's track
  // labels stay until then, since the cleanup pods select on them.
  std::map<std::string, bool> cleanup_ready;  // node -> its cleanup pod is Ready
  for (const controllers::OwnedPod& p : controllers::ReadPods(owned.iam_cleanup_pods, "remove-dir"))
    cleanup_ready[p.node] = cleanup_ready[p.node] || (p.ready && !p.terminating);
  const bool timed_out = [&] {
    auto deleted = ParseRfc3339(pool.metadata.deletion_timestamp.value_or(""));
    return !deleted.ok() || clock_.WallNow() >= *deleted + kIamCleanupTimeout;
  }();
  NodeTrackLabelMatcher is_track_label(ns, name);
  std::vector<IamCleanupNode> iam_nodes;
  for (const auto& node : stores_.nodes.List()) {
    IamCleanupNode n{std::string(node->Name()), {}, false};
    for (const auto& [key, value] : node->Labels()) {
      if (is_track_label(key)) n.track_labels.insert(key);
    }
    n.pod_ready = cleanup_ready[n.name];
    iam_nodes.push_back(std::move(n));
  }
  const IamCleanupPlan plan = PlanIamCleanup(iam_nodes, timed_out);
  if (plan.waiting) {
    RDMASTACK_RETURN_IF_ERROR(controllers::CheckNameFree(
        stores_.daemonsets, OwnerOf(pool), "DaemonSet", IamCleanupDaemonSetName(name)));
    RDMASTACK_RETURN_IF_ERROR(writer().ApplyIfChanged(
        k8s::kinds::DaemonSet(), RenderIamCleanupDaemonSet(pool, plan.label_keys, render_),
        owned.iam_cleanup));
  }
  if (!plan.abandoned.empty()) {
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
  }

  // The pool's track labels (of cleaned or given-up nodes) and its upgrade state annotation leave
  // the nodes.
  const std::set<std::string> release(plan.cleaned.begin(), plan.cleaned.end());
  const std::set<std::string> given_up(plan.abandoned.begin(), plan.abandoned.end());
  std::vector<std::pair<std::string, std::string>> unlabel;
  const std::string state_key = NodeUpgradeAnnotation(ns, name);
  bool labels_left = false;
  for (const auto& node : stores_.nodes.List()) {
    const std::string node_name(node->Name());
    const bool keep = !release.contains(node_name) && !given_up.contains(node_name);
    k8s::JsonBuilder patch;
    bool changed = false;
    if (keep) {
      for (const auto& [key, value] : node->Labels())
        labels_left = labels_left || is_track_label(key);
    } else {
      changed = controllers::AddMetadataMapPatch("labels", node->Labels(), {},
                                                 std::ref(is_track_label), &patch);
    }
    for (const std::string& key : {state_key, NodeMaintenanceAnnotation(ns, name)}) {
      if (!node->Annotation(key)) continue;
      patch.SetNull({"metadata", "annotations", key});
      changed = true;
    }
    if (changed) unlabel.emplace_back(node_name, patch.object().Serialize());
  }
  RDMASTACK_RETURN_IF_ERROR(writer().PatchNodes(unlabel, kLabelWriters));
  if (labels_left) {
    spdlog::info("gatewaypool {}/{}: deleting; waiting for the IAM directory to leave {} node(s)",
                 ns, name, iam_nodes.size() - release.size() - given_up.size());
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

}  // namespace rdmastack::gatewaypool
