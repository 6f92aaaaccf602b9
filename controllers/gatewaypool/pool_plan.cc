#include "controllers/gatewaypool/pool_plan.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include "base/duration.h"
#include "controllers/common/node_walk.h"
#include "controllers/common/render.h"
#include "controllers/common/tenancy.h"
#include "controllers/gatewaypool/endpoints.h"
#include "controllers/gatewaypool/pool_host_policy.h"
#include "controllers/gatewaypool/rails.h"
#include "crds/types/reasons.h"
#include "operator/k8s/json_builder.h"

namespace rdmastack::gatewaypool {
namespace {

namespace reasons = crd::reasons;

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

void Refuse(TrackDecision& d, std::string reason, std::string message) {
  d.track.reset();
  d.reason = std::move(reason);
  d.message = std::move(message);
}

// Compatibility first, then what the admin lets a pool take on a host (tolerations, the new
// track's host ports, images, host directories) and whether its namespace is served. A refusal
// starts nothing; what serves stays.
TrackDecision DecideTrackOf(const PoolSnapshot& s, const controllers::TenancyPolicy& tenancy) {
  const crd::GatewayPool& pool = *s.pool;
  TrackDecision d;
  if (s.matrix == nullptr) {
    d.reason = reasons::kCompatibilityDataInvalid;
    d.message = s.matrix_error;
  } else {
    d = DecideTrack(pool.spec, *s.matrix);
  }
  if (auto refused = CheckPoolHostPolicy(tenancy, pool.spec, d.track))
    Refuse(d, std::move(refused->reason), std::move(refused->message));
  if (auto refused = NotAllowed(tenancy, pool))
    Refuse(d, controllers::kReasonNotAllowed, std::move(*refused));
  // Its RBAC reaches neither the Secrets nor what the pool would own there.
  if (s.unserved) Refuse(d, controllers::kReasonNamespaceNotServed, *s.unserved);
  return d;
}

void TakeSecrets(const PoolSnapshot& s, PoolStatusInputs& in) {
  in.secret = s.credentials.state;
  in.secret_message = s.credentials.message;
  if (s.tls && s.tls->state != SecretState::kPresent) {
    in.secret = s.tls->state;
    in.secret_message = s.tls->message;
    in.secret_reason = reasons::kTlsSecretMissing;
  }
}

std::map<std::string, Track> RecordedTracks(const PoolObjects& owned) {
  std::map<std::string, Track> tracks;
  for (const auto& d : owned.daemonsets) {
    auto t = ParseTrack(d->Annotation(kTrackSpecAnnotation).value_or(""));
    if (t.ok()) tracks[t->name] = *t;
  }
  return tracks;
}

// A track still running on the nodes that holds the new track's ports (SideBySide needs them free).
std::string PortConflict(const crd::GatewayPoolSpec& spec, const Track& target,
                         const std::map<std::string, Track>& tracks) {
  std::string conflict;
  const std::set<int32_t> wanted = TrackPorts(spec, target);
  for (const auto& [name, other] : tracks) {
    if (name == target.name) continue;
    const std::set<int32_t> held = TrackPorts(spec, other);
    if (std::any_of(wanted.begin(), wanted.end(), [&](int32_t p) { return held.count(p) > 0; }))
      conflict = "track " + target.name + " would use ports " + std::to_string(target.s3_port) +
                 "/" + std::to_string(target.rdma_port) + " that track " + name +
                 " still holds on its nodes; give the new version its own s3.port and " +
                 "rdma.port (or leave them unset)";
  }
  return conflict;
}

UpgradeInputs UpgradeBase(const PoolSnapshot& s, const PoolInputs& in) {
  UpgradeInputs up;
  up.spec = s.pool->spec.upgrade;
  up.now =
      std::chrono::duration_cast<std::chrono::seconds>(in.status.now.time_since_epoch()).count();
  up.api_answering_since = s.api_answering_since;
  up.may_start = in.may_start;
  if (auto timeout = ParseDuration(s.pool->spec.upgrade.validation_timeout); timeout.ok())
    up.validation_timeout_s = std::max<int64_t>(1, timeout->count() / 1000);
  if (const std::optional<Track>& track = in.status.decision.track) {
    up.target = track->name;
    up.target_hash =
        in.daemonset->GetString({"spec", "template", "metadata", "labels", kTemplateHashLabel})
            .value_or("");
    up.port_conflict = PortConflict(s.pool->spec, *track, in.tracks);
  }
  return up;
}

// The pool's tracks whose label the node carries.
std::set<std::string> TracksOn(const crd::StringMap& labels, NodeTrackLabelMatcher& is_mine) {
  std::set<std::string> mine;
  for (const auto& [k, v] : labels) {
    if (is_mine(k)) mine.insert(k.substr(k.rfind('.') + 1));
  }
  return mine;
}

// One selected node's upgrade input (validation aside) and its check.
UpgradeNode UpgradeNodeOf(const PoolSnapshot& s, const PoolInputs& in, const PoolNode& n,
                          std::set<std::string> mine, const NodeVerdict& verdict,
                          const controllers::PodsByNode& pods,
                          const std::map<std::string, std::set<std::string>>& published) {
  const crd::GatewayPool& pool = *s.pool;
  const std::optional<Track>& track = in.status.decision.track;
  UpgradeNode u;
  u.name = n.name;
  u.eligible = controllers::KeepsWorkload(verdict.verified, track && mine.count(track->name) != 0,
                                          verdict.reason);
  u.state = n.upgrade;
  u.count_since = n.count_since;
  u.count_started = n.count_started;
  if (auto it = pods.find(n.name); it != pods.end()) u.pods = it->second;
  if (auto it = published.find(n.name); it != published.end()) u.published = it->second;
  MaintenanceInput m{MaintenanceCause(n.unschedulable, n.marks.labels), n.maintenance, mine,
                     u.published, n.maintenance_count_since};
  if (pool.spec.node_maintenance == crd::NodeMaintenancePolicy::kIgnore) m.cause.clear();
  u.maintenance =
      StepMaintenance(m, {in.upgrade.now, pool.spec.upgrade.drain_seconds, s.api_answering_since});
  u.tracks = std::move(mine);
  return u;
}

// Walks the nodes: the selected ones are checked and become the planner's nodes; those the
// selector left and that still carry the pool's labels or annotations are cleared.
void TakeNodes(const PoolSnapshot& s, PoolInputs& in) {
  const crd::GatewayPool& pool = *s.pool;
  NodeTrackLabelMatcher is_mine(pool.metadata.namespace_.value_or(""), pool.metadata.name);
  std::map<std::string, std::set<std::string>> published;  // node -> tracks it is ready on
  for (const auto& slice : s.owned.slices) {
    const std::string t = slice->Label(kTrackLabel).value_or("");
    for (const auto& node : ReadyNodes(*slice)) published[node].insert(t);
  }
  const controllers::PodsByNode pods = controllers::GroupByNode(
      s.owned.pods, [](const controllers::OwnedPod& p) { return p.track; });
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const PoolNode& n = s.nodes[i];
    std::set<std::string> mine = TracksOn(n.marks.labels, is_mine);
    if (!n.selected) {
      if (!mine.empty() || n.marks.state || n.marks.maintenance) in.leaving.push_back(i);
      continue;
    }
    NodeVerdict verdict =
        VerifyNode(pool.spec, NodeInput{n.name, n.marks.labels, n.report ? &*n.report : nullptr});
    in.upgrade.nodes.push_back(UpgradeNodeOf(s, in, n, std::move(mine), verdict, pods, published));
    in.status.selected.push_back({n.name, std::move(verdict)});
    in.planned.push_back(i);
  }
}

// Builds a node's merge patch from what it carries to what the plan wants; nullopt when they
// agree.
class NodePatcher {
 public:
  explicit NodePatcher(const crd::GatewayPool& pool)
      : ns_(pool.metadata.namespace_.value_or("")),
        name_(pool.metadata.name),
        is_mine_(ns_, name_),
        state_key_(NodeUpgradeAnnotation(ns_, name_)),
        maintenance_key_(NodeMaintenanceAnnotation(ns_, name_)) {}

  std::optional<NodePatch> Patch(const PoolNode& node, const NodeMarks& now,
                                 const std::set<std::string>& want_tracks,
                                 const std::optional<NodeUpgradeState>& want_state,
                                 const std::optional<std::string>& want_maintenance, bool starts) {
    std::map<std::string, std::string> want;
    for (const auto& t : want_tracks) want[NodeTrackLabel(ns_, name_, t)] = "true";
    k8s::JsonBuilder patch;
    const bool labels_changed =
        controllers::AddMetadataMapPatch("labels", now.labels, want, std::ref(is_mine_), &patch);
    bool state_changed =
        Annotate(patch, state_key_,
                 want_state ? std::optional<std::string>(SerializeNodeUpgradeState(*want_state))
                            : std::nullopt,
                 now.state.value_or("").empty() ? std::nullopt : now.state);
    state_changed =
        Annotate(patch, maintenance_key_, want_maintenance, now.maintenance) || state_changed;
    if (!labels_changed && !state_changed) return std::nullopt;
    return NodePatch{node.name, node.resource_version, patch.object(), state_changed, starts};
  }

  // The node as a first write of `d` left it.
  NodeMarks After(const NodeMarks& before, const NodeDecision& d,
                  const std::optional<std::string>& maintenance) {
    NodeMarks now = before;
    for (auto it = now.labels.begin(); it != now.labels.end();)
      it = is_mine_(it->first) ? now.labels.erase(it) : std::next(it);
    for (const auto& t : d.tracks) now.labels[NodeTrackLabel(ns_, name_, t)] = "true";
    now.state =
        d.state ? std::optional<std::string>(SerializeNodeUpgradeState(*d.state)) : std::nullopt;
    now.maintenance = maintenance;
    return now;
  }

 private:
  static bool Annotate(k8s::JsonBuilder& patch, const std::string& key,
                       const std::optional<std::string>& value,
                       const std::optional<std::string>& now) {
    if (value == now) return false;
    if (value) {
      patch.SetString({"metadata", "annotations", key}, *value);
    } else {
      patch.SetNull({"metadata", "annotations", key});
    }
    return true;
  }

  std::string ns_;
  std::string name_;
  NodeTrackLabelMatcher is_mine_;
  std::string state_key_;
  std::string maintenance_key_;
};

void AddPatch(NodeWrites& w, std::optional<NodePatch> patch) {
  if (patch) w.patches.push_back(std::move(*patch));
}

// The maintenance annotation a decision wants; a refused spec keeps the node's as it is.
std::optional<std::string> MaintenanceWanted(const PoolPlan& plan, const PoolNode& node,
                                             const NodeDecision& d) {
  const std::optional<MaintenanceState>& m = d.maintenance.state;
  return !plan.planned_now ? node.marks.maintenance
         : m               ? std::optional<std::string>(SerializeMaintenanceState(*m))
                           : std::nullopt;
}

void AddStamps(NodeWrites& w, const NodeDecision& d) {
  if (d.state) {
    w.stamps.push_back({d.node + "/since", d.state->since});
    w.stamps.push_back({d.node + "/started", d.state->started});
  }
  if (d.maintenance.state)
    w.stamps.push_back({d.node + "/maintenance", d.maintenance.state->since});
}

void AddTransition(NodeWrites& w, const PoolNode& node, const NodeDecision& d) {
  if (d.transition.empty()) return;
  w.events.push_back(PlannedEvent{
      node.object, d.warning ? runtime::EventType::kWarning : runtime::EventType::kNormal,
      "Upgrade" + std::string(d.state ? PhaseName(d.state->phase) : "Pending"), "Upgrade",
      "node " + d.node + ": " + d.transition +
          (d.state && !d.state->reason.empty() && d.warning
               ? " (" + d.state->reason + ": " + d.state->message + ")"
               : "")});
}

bool Starts(const std::optional<NodeUpgradeState>& now,
            const std::optional<NodeUpgradeState>& before) {
  return now && InFlight(*now) && !(before && InFlight(*before));
}

NodeWrites PlanNodeWrites(const PoolSnapshot& s, const PoolPlan& plan) {
  NodePatcher patcher(*s.pool);
  NodeWrites w;
  for (size_t i : plan.inputs.leaving) {
    const PoolNode& n = s.nodes[i];
    AddPatch(w, patcher.Patch(n, n.marks, {}, std::nullopt, std::nullopt, false));
  }
  for (size_t i = 0; i < plan.upgrade.nodes.size(); ++i) {
    const NodeDecision& d = plan.upgrade.nodes[i];
    const PoolNode& n = s.nodes[plan.inputs.planned[i]];
    AddStamps(w, d);
    AddPatch(w, patcher.Patch(n, n.marks, d.tracks, d.state, MaintenanceWanted(plan, n, d),
                              Starts(d.state, plan.inputs.upgrade.nodes[i].state)));
    if (plan.planned_now && !d.maintenance.transition.empty()) {
      w.events.push_back(PlannedEvent{n.object, runtime::EventType::kNormal,
                                      d.maintenance.event_reason, "Maintenance",
                                      "node " + d.node + ": " + d.maintenance.transition});
    }
    AddTransition(w, n, d);
  }
  return w;
}

std::vector<runtime::ObjectPtr> PodDeletions(const PoolSnapshot& s, const UpgradePlan& upgrade) {
  std::vector<runtime::ObjectPtr> out;
  for (const NodeDecision& d : upgrade.nodes) {
    if (d.delete_pod.empty()) continue;
    // Only a pod of the pool's own DaemonSets, never a look-alike of the same name.
    for (const runtime::ObjectPtr& p : s.owned.pod_objects) {
      if (p->Name() == d.delete_pod) out.push_back(p);
    }
  }
  return out;
}

runtime::ObjectPtr Named(const std::vector<runtime::ObjectPtr>& objects, std::string_view name) {
  for (const auto& o : objects) {
    if (o->Name() == name) return o;
  }
  return nullptr;
}

// One track's slices: rendered from the plan's roles, split by whether they gain ready
// endpoints; those no longer rendered are unwanted.
void PlanTrackSlices(const PoolSnapshot& s, const Track& t, const std::string& target,
                     const std::map<std::string, const NodeDecision*>& decisions,
                     const VerdictsByNode& verdicts, WorkloadWrites& w) {
  auto role = [&](const std::string& node) {
    auto it = decisions.find(node);
    return it == decisions.end() ? EndpointRole::kAbsent : NodeRole(*it->second, t.name, target);
  };
  std::set<std::string> desired;
  const bool multi_rail = !s.pool->spec.rdma.rails.empty();
  for (const Rail& r : RailsOf(s.pool->spec, t)) {
    std::vector<const k8s::JsonObject*> current;
    for (const auto& slice : s.owned.slices) {
      if (slice->Label(kTrackLabel) == t.name && slice->Label(kRailLabel).value_or("") == r.name)
        current.push_back(slice.get());
    }
    const SliceRail rail{r, [&verdicts, &r](const std::string& node) {
                           return RailServesOn(verdicts, node, r.name);
                         }};
    for (auto& slice : RenderEndpointSlices(*s.pool, t, s.owned.pods, ReadSliceAssignment(current),
                                            role, multi_rail ? &rail : nullptr)) {
      desired.insert(std::string(slice.Name()));
      runtime::ObjectPtr existing = Named(s.owned.slices, slice.Name());
      const std::set<std::string> before =
          existing ? ReadyNodes(*existing) : std::set<std::string>{};
      bool gains = false;
      for (const auto& node : ReadyNodes(slice)) gains = gains || !before.count(node);
      (gains ? w.gaining : w.rest).push_back({std::move(slice), std::move(existing)});
    }
  }
  for (const auto& slice : s.owned.slices) {
    if (slice->Label(kTrackLabel) == t.name && !desired.count(std::string(slice->Name())))
      w.unwanted_slices.push_back(slice);
  }
}

void PlanRetiredTracks(const PoolSnapshot& s, const Track& target, const UpgradePlan& upgrade,
                       WorkloadWrites& w) {
  std::set<std::string> still_labelled;
  for (const NodeDecision& d : upgrade.nodes)
    still_labelled.insert(d.tracks.begin(), d.tracks.end());
  for (const auto& ds : s.owned.daemonsets) {
    const std::string t = ds->Label(kTrackLabel).value_or("");
    if (t == target.name || still_labelled.count(t)) continue;
    std::vector<runtime::ObjectPtr> slices;
    for (const auto& slice : s.owned.slices) {
      if (slice->Label(kTrackLabel) == t) slices.push_back(slice);
    }
    w.retired.emplace_back(ds, std::move(slices));
  }
}

}  // namespace

PoolInputs DecidePool(const PoolSnapshot& snapshot, const GatewayRenderOptions& render) {
  const crd::GatewayPool& pool = *snapshot.pool;
  PoolInputs in;
  in.status.pool = &pool;
  in.status.now = snapshot.now;
  in.status.decision = DecideTrackOf(snapshot, render.node_pods.tenancy);
  in.status.conflict = snapshot.conflict;
  if (in.status.decision.track) {
    if (auto rendered = RenderGatewayDaemonSet(pool, *in.status.decision.track, render);
        rendered.ok()) {
      in.daemonset = std::move(*rendered);
    } else {
      Refuse(in.status.decision, reasons::kInvalidSpec, std::string(rendered.status().message()));
    }
  }
  TakeSecrets(snapshot, in.status);
  in.may_start = in.status.decision.track.has_value() &&
                 in.status.secret == SecretState::kPresent && !in.status.conflict.has_value();
  in.status.pods = snapshot.owned.pods;
  in.tracks = RecordedTracks(snapshot.owned);
  in.upgrade = UpgradeBase(snapshot, in);
  if (const std::optional<Track>& track = in.status.decision.track) in.tracks[track->name] = *track;
  TakeNodes(snapshot, in);
  return in;
}

PoolPlan PlanPool(const PoolSnapshot& snapshot, PoolInputs inputs) {
  PoolPlan plan;
  plan.inputs = std::move(inputs);
  plan.upgrade = PlanUpgrade(plan.inputs.upgrade);
  plan.planned_now = plan.inputs.upgrade.may_start && !plan.inputs.upgrade.target.empty();
  plan.nodes = PlanNodeWrites(snapshot, plan);
  plan.pod_deletions = PodDeletions(snapshot, plan.upgrade);
  plan.waits_on_publish = plan.planned_now && WaitsOnPublish(plan.inputs.upgrade, plan.upgrade);
  std::sort(plan.inputs.status.selected.begin(), plan.inputs.status.selected.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return plan;
}

NodeWrites PlanAfterPublish(const PoolSnapshot& snapshot, PoolPlan& plan,
                            const std::map<std::string, std::set<std::string>>& gained) {
  NodePatcher patcher(*snapshot.pool);
  UpgradePlan chained = PlanUpgrade(AfterWrites(plan.inputs.upgrade, plan.upgrade, gained));
  NodeWrites w;
  for (size_t i = 0; i < chained.nodes.size(); ++i) {
    const NodeDecision& d = chained.nodes[i];
    const NodeDecision& before = plan.upgrade.nodes[i];
    if (d.tracks == before.tracks && d.state == before.state) continue;
    AddStamps(w, d);
    const PoolNode& n = snapshot.nodes[plan.inputs.planned[i]];
    const NodeMarks now = patcher.After(n.marks, before, MaintenanceWanted(plan, n, before));
    AddPatch(w, patcher.Patch(n, now, d.tracks, d.state, MaintenanceWanted(plan, n, d),
                              Starts(d.state, before.state)));
    AddTransition(w, n, d);
  }
  plan.upgrade = std::move(chained);
  return w;
}

WorkloadWrites PlanWorkloads(const PoolSnapshot& snapshot, const PoolInputs& inputs,
                             const UpgradePlan& upgrade) {
  WorkloadWrites w;
  if (!inputs.may_start) return w;
  const crd::GatewayPool& pool = *snapshot.pool;
  const Track& target = *inputs.status.decision.track;
  const PoolObjects& owned = snapshot.owned;
  w.daemonset = ObjectWrite{*inputs.daemonset, Named(owned.daemonsets, inputs.daemonset->Name())};
  w.service = ObjectWrite{RenderService(pool, target), owned.service};
  std::map<std::string, const NodeDecision*> decisions;
  for (const NodeDecision& d : upgrade.nodes) decisions[d.node] = &d;
  const VerdictsByNode verdicts = IndexVerdicts(inputs.status.selected);
  for (const auto& [track_name, t] : inputs.tracks) {
    const bool has_ds =
        Named(owned.daemonsets, DaemonSetName(pool.metadata.name, track_name)) != nullptr;
    if (!has_ds && track_name != target.name) continue;
    PlanTrackSlices(snapshot, t, target.name, decisions, verdicts, w);
  }
  PlanRetiredTracks(snapshot, target, upgrade, w);
  return w;
}

crd::GatewayPoolStatus PoolStatusOf(PoolPlan&& plan) {
  PoolStatusInputs in = std::move(plan.inputs.status);
  in.upgrade = &plan.upgrade;
  in.tracks = std::move(plan.inputs.tracks);
  return ComputePoolStatus(in);
}

}  // namespace rdmastack::gatewaypool
