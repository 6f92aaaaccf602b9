#include "controllers/gatewaypool/gatewaypool_reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "controllers/common/conditions.h"
#include "controllers/common/parallel.h"
#include "controllers/common/render.h"
#include "controllers/gatewaypool/endpoints.h"
#include "crds/types/json.h"
#include "operator/k8s/api_error.h"

namespace rdmastack::gatewaypool {
namespace {

bool OwnedBy(const k8s::JsonObject& o, const std::string& ns, const std::string& pool) {
  return o.Namespace() == ns && o.Label(kPoolLabel) == pool;
}

std::string ObjectKey(const k8s::JsonObject& o) {
  return std::string(o.Kind()) + ":" + std::string(o.Namespace()) + "/" + std::string(o.Name());
}

std::string Quote(std::string_view s) {
  k8s::JsonObject o = controllers::Str(s);
  return o.Serialize();
}

// A secret's data keys (values are dropped by the informer's transform).
std::pair<SecretState, std::string> CheckSecret(const runtime::Store& secrets,
                                                const crd::GatewayPool& pool) {
  const auto& ref = pool.spec.s3.credentials_secret;
  const std::string ns = pool.metadata.namespace_.value_or("");
  const runtime::ObjectPtr secret = secrets.Get(ns + "/" + ref.name);
  if (secret == nullptr) {
    return {SecretState::kMissing,
            "Secret " + ns + "/" + ref.name + " (s3.credentialsSecret) does not exist; create it " +
                "with the keys " + ref.access_key_id_key + " and " + ref.secret_access_key_key};
  }
  for (const std::string& key : {ref.access_key_id_key, ref.secret_access_key_key}) {
    if (!secret->Has({"data", key})) {
      return {SecretState::kKeyMissing, "Secret " + ns + "/" + ref.name + " has no key " + key +
                                            " (s3.credentialsSecret); add it"};
    }
  }
  return {SecretState::kPresent, ""};
}

}  // namespace

const k8s::ResourceType& EndpointSliceType() {
  static const k8s::ResourceType* type =
      new k8s::ResourceType{"discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", true};
  return *type;
}

struct GatewayPoolReconciler::Owned {
  std::vector<runtime::ObjectPtr> daemonsets;
  std::vector<runtime::ObjectPtr> slices;
  runtime::ObjectPtr service;
  std::vector<GatewayPod> pods;
};

GatewayPoolReconciler::GatewayPoolReconciler(k8s::Client& client, runtime::EventRecorder& events,
                                             Clock& clock, GatewayPoolStores stores,
                                             const CompatibilitySource& compatibility,
                                             GatewayRenderOptions render)
    : client_(client),
      events_(events),
      clock_(clock),
      stores_(stores),
      compatibility_(compatibility),
      render_(std::move(render)) {}

GatewayPoolReconciler::Owned GatewayPoolReconciler::Collect(const std::string& ns,
                                                            const std::string& pool) const {
  Owned owned;
  for (const auto& o : stores_.daemonsets.List()) {
    if (OwnedBy(*o, ns, pool)) owned.daemonsets.push_back(o);
  }
  for (const auto& o : stores_.slices.List()) {
    if (OwnedBy(*o, ns, pool)) owned.slices.push_back(o);
  }
  for (const auto& o : stores_.pods.List()) {
    if (OwnedBy(*o, ns, pool)) owned.pods.push_back(ReadGatewayPod(*o));
  }
  owned.service = stores_.services.Get(ns + "/" + ServiceName(pool));
  if (owned.service != nullptr && !OwnedBy(*owned.service, ns, pool)) owned.service = nullptr;
  return owned;
}

Status GatewayPoolReconciler::ApplyIfChanged(const k8s::ResourceType& type,
                                             const k8s::JsonObject& desired,
                                             const runtime::ObjectPtr& existing) {
  const std::string hash = desired.Annotation(controllers::kAppliedHashAnnotation).value_or("");
  const std::string key = ObjectKey(desired);
  if (existing != nullptr) {
    if (existing->Annotation(controllers::kAppliedHashAnnotation) == hash) return OkStatus();
    if (written_.Pending(key, hash, existing->ResourceVersion())) return OkStatus();
  } else if (written_.Pending(key, hash, "0")) {
    return OkStatus();  // created by us, not in the cache yet (a deletion would have Forgotten it)
  }
  k8s::PatchOptions options;
  options.field_manager = controllers::kFieldManager;
  options.force = true;
  auto applied = client_.Apply(type, desired, options);
  if (!applied.ok()) return applied.status().WithContext("apply " + key);
  written_.Remember(key, hash, std::string(applied->ResourceVersion()));
  spdlog::info("gatewaypool: applied {} (hash {})", key, hash.substr(0, 12));
  return OkStatus();
}

void GatewayPoolReconciler::ObjectDeleted(const k8s::JsonObject& object) {
  written_.Forget(ObjectKey(object));
}

Status GatewayPoolReconciler::DeleteOwned(const k8s::ResourceType& type,
                                          const runtime::ObjectPtr& object) {
  if (object == nullptr || object->IsBeingDeleted()) return OkStatus();
  k8s::DeleteOptions options;
  options.precondition_uid = std::string(object->Uid());
  options.propagation_policy = k8s::PropagationPolicy::kBackground;
  auto deleted = client_.Delete(type, object->Namespace(), object->Name(), options);
  if (!deleted.ok() && !k8s::IsNotFound(deleted.status()))
    return deleted.status().WithContext("delete " + ObjectKey(*object));
  written_.Forget(ObjectKey(*object));
  spdlog::info("gatewaypool: deleted {}", ObjectKey(*object));
  return OkStatus();
}

StatusOr<runtime::Result> GatewayPoolReconciler::Reconcile(const runtime::Request& request) {
  const runtime::ObjectPtr object = stores_.pools.Get(request.Key());
  if (object == nullptr) {
    statuses_.Forget(request.Key());
    return runtime::Result{};
  }
  auto parsed = crd::ParseResource<crd::GatewayPool>(object->value());
  if (!parsed.ok()) return runtime::TerminalError(parsed.status().WithContext(request.Key()));
  const crd::GatewayPool& pool = *parsed;
  const std::string& ns = request.ns;
  const std::string& name = request.name;
  const Owned owned = Collect(ns, name);
  const std::vector<std::string> finalizers = object->Finalizers();
  const bool has_finalizer =
      std::find(finalizers.begin(), finalizers.end(), kFinalizer) != finalizers.end();

  if (object->IsBeingDeleted()) {
    if (!has_finalizer) return runtime::Result{};
    RDMASTACK_RETURN_IF_ERROR(Cleanup(*object, pool, owned));
    return runtime::Result{};
  }
  if (!has_finalizer) {
    std::string list = "[";
    for (const auto& f : finalizers) list += Quote(f) + ",";
    list += Quote(kFinalizer) + "]";
    const std::string patch = R"({"metadata":{"resourceVersion":)" +
                              Quote(object->ResourceVersion()) + R"(,"finalizers":)" + list + "}}";
    k8s::PatchOptions options;
    options.field_manager = controllers::kFieldManager;
    auto patched =
        client_.Patch(k8s::kinds::GatewayPool(), ns, name, k8s::PatchType::kMerge, patch, options);
    if (!patched.ok()) return patched.status().WithContext("add the finalizer to " + request.Key());
  }

  // Decide: compatibility first, then the Secret; nothing new starts unless both pass.
  PoolStatusInputs in;
  in.pool = &pool;
  in.now = clock_.WallNow();
  if (auto matrix = compatibility_.Current(); !matrix.ok()) {
    in.decision.reason = "CompatibilityDataInvalid";
    in.decision.message = std::string(matrix.status().message());
  } else {
    in.decision = DecideTrack(pool.spec, **matrix);
  }
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
  std::tie(in.secret, in.secret_message) = CheckSecret(stores_.secrets, pool);
  const bool may_start = in.decision.track.has_value() && in.secret == SecretState::kPresent;
  const std::optional<Track>& track = in.decision.track;
  in.pods = owned.pods;

  // Nodes: which the selector matches, which can run the gateway, which carry our labels.
  std::set<std::string> ready_current;  // nodes where the current track's gateway is Ready
  for (const auto& p : owned.pods) {
    if (track && p.track == track->name && p.ready && !p.terminating) ready_current.insert(p.node);
  }
  std::set<std::string> tracks_still_labelled;
  std::vector<std::pair<std::string, std::string>> label_patches;  // node, merge patch
  for (const auto& node : stores_.nodes.List()) {
    const std::string node_name(node->Name());
    const crd::StringMap labels = node->Labels();
    std::map<std::string, std::string> mine;
    for (const auto& [k, v] : labels) {
      if (IsNodeTrackLabelOf(k, ns, name)) mine[k] = v;
    }
    const bool selected = SelectorMatches(pool.spec.node_selector, labels);
    if (!selected && mine.empty()) continue;
    std::map<std::string, std::string> want;
    if (selected) {
      NodeInput input{node_name, labels, std::nullopt};
      if (const runtime::ObjectPtr r = stores_.rdmanodes.Get(node_name); r != nullptr) {
        auto rnode = crd::ParseResource<crd::RdmaNode>(r->value());
        if (rnode.ok() && rnode->status) input.rdma = std::move(rnode->status);
      }
      NodeVerdict verdict = VerifyNode(pool.spec, input);
      if (may_start) {
        const std::string current = NodeTrackLabel(ns, name, track->name);
        const bool labelled = mine.count(current) != 0;
        // A silent agent does not take a running gateway away; a failed check does.
        if (verdict.verified || (labelled && verdict.reason == "AgentNotReporting"))
          want[current] = "true";
        // Another track (the spec moved) stays until the current one serves on this node.
        for (const auto& [k, v] : mine) {
          if (k != current && !ready_current.count(node_name)) want[k] = v;
        }
      } else {
        want = mine;  // refused spec or no Secret: nothing added, nothing taken away
      }
      in.selected.push_back({node_name, std::move(verdict)});
    }
    for (const auto& [k, v] : want) tracks_still_labelled.insert(k.substr(k.rfind('.') + 1));
    std::string patch = controllers::LabelPatch(
        labels, want, [&](std::string_view key) { return IsNodeTrackLabelOf(key, ns, name); });
    if (patch.empty() || labels_.Pending(node_name, patch, node->ResourceVersion())) continue;
    label_patches.push_back({node_name, std::move(patch)});
  }
  RDMASTACK_RETURN_IF_ERROR(PatchNodeLabels(request.Key(), label_patches));
  std::sort(in.selected.begin(), in.selected.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });

  // Workloads and endpoints. A failed write does not hold the status back: it is written with
  // what is known, and the error is retried.
  const Status synced =
      SyncWorkloads(pool, in.decision, daemonset, may_start, owned, tracks_still_labelled);

  const crd::GatewayPoolStatus status = ComputePoolStatus(in);
  RecordTransitions(*object, pool, status);
  RDMASTACK_RETURN_IF_ERROR(WriteStatus(*object, pool, status));
  RDMASTACK_RETURN_IF_ERROR(synced);
  return runtime::Result{};
}

Status GatewayPoolReconciler::SyncWorkloads(const crd::GatewayPool& pool,
                                            const TrackDecision& decision,
                                            const std::optional<k8s::JsonObject>& daemonset,
                                            bool may_start, const Owned& owned,
                                            const std::set<std::string>& tracks_still_labelled) {
  const std::string ns = pool.metadata.namespace_.value_or("");
  const std::string& name = pool.metadata.name;
  const std::optional<Track>& track = decision.track;
  auto existing_ds = [&](const std::string& ds_name) -> runtime::ObjectPtr {
    for (const auto& d : owned.daemonsets) {
      if (d->Name() == ds_name) return d;
    }
    return nullptr;
  };
  if (may_start) {
    RDMASTACK_RETURN_IF_ERROR(ApplyIfChanged(k8s::kinds::DaemonSet(), *daemonset,
                                             existing_ds(std::string(daemonset->Name()))));
    RDMASTACK_RETURN_IF_ERROR(
        ApplyIfChanged(k8s::kinds::Service(), RenderService(pool, *track), owned.service));
  }
  if (track && (may_start || existing_ds(DaemonSetName(name, track->name)) != nullptr)) {
    std::vector<const k8s::JsonObject*> current;
    for (const auto& s : owned.slices) {
      if (s->Label(kTrackLabel) == track->name) current.push_back(s.get());
    }
    std::set<std::string> desired_slices;
    for (const auto& slice :
         RenderEndpointSlices(pool, *track, owned.pods, ReadSliceAssignment(current))) {
      desired_slices.insert(std::string(slice.Name()));
      runtime::ObjectPtr existing = stores_.slices.Get(ns + "/" + std::string(slice.Name()));
      RDMASTACK_RETURN_IF_ERROR(ApplyIfChanged(EndpointSliceType(), slice, existing));
    }
    for (const auto& s : owned.slices) {
      if (s->Label(kTrackLabel) == track->name && !desired_slices.count(std::string(s->Name())))
        RDMASTACK_RETURN_IF_ERROR(DeleteOwned(EndpointSliceType(), s));
    }
  }
  if (may_start) {
    // Tracks the spec left, once no node runs them any more.
    for (const auto& d : owned.daemonsets) {
      const std::string t = d->Label(kTrackLabel).value_or("");
      if (t == track->name || tracks_still_labelled.count(t)) continue;
      RDMASTACK_RETURN_IF_ERROR(DeleteOwned(k8s::kinds::DaemonSet(), d));
      for (const auto& s : owned.slices) {
        if (s->Label(kTrackLabel) == t)
          RDMASTACK_RETURN_IF_ERROR(DeleteOwned(EndpointSliceType(), s));
      }
    }
  }

  return OkStatus();
}

Status GatewayPoolReconciler::PatchNodeLabels(
    const std::string& pool_key, const std::vector<std::pair<std::string, std::string>>& patches) {
  std::vector<Status> results(patches.size());
  controllers::ParallelFor(patches.size(), kLabelWriters, [&](size_t i) {
    const auto& [node, patch] = patches[i];
    k8s::PatchOptions options;
    options.field_manager = controllers::kFieldManager;
    auto patched =
        client_.Patch(k8s::kinds::Node(), "", node, k8s::PatchType::kMerge, patch, options);
    if (!patched.ok()) {
      results[i] = patched.status().WithContext("label Node " + node);
      return;
    }
    labels_.Remember(node, patch, std::string(patched->ResourceVersion()));
    spdlog::info("gatewaypool {}: node {} labels {}", pool_key, node, patch);
  });
  for (const Status& r : results) RDMASTACK_RETURN_IF_ERROR(r);
  return OkStatus();
}

Status GatewayPoolReconciler::WriteStatus(const k8s::JsonObject& object,
                                          const crd::GatewayPool& pool,
                                          const crd::GatewayPoolStatus& status) {
  const std::string key = object.Key();
  if (pool.status && *pool.status == status) return OkStatus();
  if (statuses_.Pending(key, status, object.ResourceVersion())) return OkStatus();
  crd::GatewayPool desired;
  desired.metadata.name = pool.metadata.name;
  desired.metadata.namespace_ = pool.metadata.namespace_;
  desired.spec = pool.spec;
  desired.status = status;
  auto body = k8s::JsonObject::Parse(crd::SerializeStatusPatch(desired));
  if (!body.ok()) return body.status();
  k8s::PatchOptions options;
  options.field_manager = controllers::kFieldManager;
  options.force = true;
  auto applied = client_.ApplyStatus(k8s::kinds::GatewayPool(), *body, options);
  if (!applied.ok()) return applied.status().WithContext("apply GatewayPool " + key + " status");
  statuses_.Remember(key, status, std::string(applied->ResourceVersion()));
  const crd::Condition* ready = controllers::FindCondition(status.conditions, kReady);
  spdlog::info("gatewaypool {}: status written (Ready={} {}, nodes {})", key,
               ready ? crd::ToString(ready->status) : "", ready ? ready->reason : "",
               status.node_counts ? status.node_counts->ready_of_selected : "");
  return OkStatus();
}

void GatewayPoolReconciler::RecordTransitions(const k8s::JsonObject& object,
                                              const crd::GatewayPool& pool,
                                              const crd::GatewayPoolStatus& status) {
  static const std::vector<crd::Condition> kNone;
  const std::vector<crd::Condition>& before = pool.status ? pool.status->conditions : kNone;
  auto changed = [&](const char* type) -> const crd::Condition* {
    const crd::Condition* now = controllers::FindCondition(status.conditions, type);
    const crd::Condition* was = controllers::FindCondition(before, type);
    if (now == nullptr) return nullptr;
    if (was != nullptr && was->status == now->status && was->reason == now->reason) return nullptr;
    return now;
  };
  if (const auto* c = changed(kLibraryCompatible); c && c->status == crd::ConditionStatus::kFalse)
    events_.Record(object, runtime::EventType::kWarning, c->reason, "Refuse", c->message);
  if (const auto* c = changed(kDegraded);
      c && c->status == crd::ConditionStatus::kTrue && c->reason != "SpecRefused")
    events_.Record(object, runtime::EventType::kWarning, c->reason, "Degrade", c->message);
  if (const auto* c = changed(kNodesVerified); c && c->status == crd::ConditionStatus::kFalse)
    events_.Record(object, runtime::EventType::kWarning, c->reason, "Verify", c->message);
  if (const auto* c = changed(kReady); c && c->status == crd::ConditionStatus::kTrue)
    events_.Record(object, runtime::EventType::kNormal, c->reason, "Ready", c->message);
}

Status GatewayPoolReconciler::Cleanup(const k8s::JsonObject& object, const crd::GatewayPool& pool,
                                      const Owned& owned) {
  const std::string ns = pool.metadata.namespace_.value_or("");
  const std::string& name = pool.metadata.name;
  // Clients first (the endpoints go), then the gateways: deleting the DaemonSets lets each pod
  // end within its grace period. The backend directories are never touched.
  for (const auto& s : owned.slices) RDMASTACK_RETURN_IF_ERROR(DeleteOwned(EndpointSliceType(), s));
  RDMASTACK_RETURN_IF_ERROR(DeleteOwned(k8s::kinds::Service(), owned.service));
  for (const auto& d : owned.daemonsets)
    RDMASTACK_RETURN_IF_ERROR(DeleteOwned(k8s::kinds::DaemonSet(), d));
  for (const auto& node : stores_.nodes.List()) {
    const std::string patch = controllers::LabelPatch(
        node->Labels(), {},
        [&](std::string_view key) { return IsNodeTrackLabelOf(key, ns, name); });
    if (patch.empty()) continue;
    k8s::PatchOptions options;
    options.field_manager = controllers::kFieldManager;
    auto patched =
        client_.Patch(k8s::kinds::Node(), "", node->Name(), k8s::PatchType::kMerge, patch, options);
    if (!patched.ok() && !k8s::IsNotFound(patched.status()))
      return patched.status().WithContext("unlabel Node " + std::string(node->Name()));
  }
  const std::vector<std::string> finalizers = object.Finalizers();
  const auto it = std::find(finalizers.begin(), finalizers.end(), kFinalizer);
  const std::string index = std::to_string(it - finalizers.begin());
  const std::string patch = R"([{"op":"test","path":"/metadata/finalizers/)" + index +
                            R"(","value":)" + Quote(kFinalizer) +
                            R"(},{"op":"remove","path":"/metadata/finalizers/)" + index + R"("}])";
  k8s::PatchOptions options;
  options.field_manager = controllers::kFieldManager;
  auto patched = client_.Patch(k8s::kinds::GatewayPool(), ns, name, k8s::PatchType::kJsonPatch,
                               patch, options);
  if (!patched.ok() && !k8s::IsNotFound(patched.status()))
    return patched.status().WithContext("remove the finalizer of " + ns + "/" + name);
  statuses_.Forget(object.Key());
  spdlog::info("gatewaypool {}/{}: deleted its gateways, endpoints and node labels", ns, name);
  return OkStatus();
}

}  // namespace rdmastack::gatewaypool
