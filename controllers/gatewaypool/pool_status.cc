#include "controllers/gatewaypool/pool_status.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/rfc3339.h"
#include "controllers/common/conditions.h"

namespace rdmastack::gatewaypool {
namespace {

using crd::ConditionStatus;

std::string Count(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string SelectorText(const crd::StringMap& selector) {
  if (selector.empty()) return "{} (every node)";
  std::string out;
  for (const auto& [k, v] : selector) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

// The node's serving gateway of the current track, else any live one of the pool.
struct NodeGateway {
  const controllers::OwnedPod* current = nullptr;  // pod of the spec's track
  bool any_ready = false;                          // some track's gateway is Ready here
};

std::map<std::string, NodeGateway> ByNode(const std::vector<controllers::OwnedPod>& pods,
                                          const std::optional<Track>& track) {
  std::map<std::string, NodeGateway> out;
  for (const auto& p : pods) {
    if (p.node.empty()) continue;
    NodeGateway& g = out[p.node];
    if (p.ready && !p.terminating) g.any_ready = true;
    if (track && p.track == track->name && (g.current == nullptr || !p.terminating)) g.current = &p;
  }
  return out;
}

crd::NodeProblem GatewayProblem(const std::string& node, const controllers::OwnedPod* pod,
                                int32_t port) {
  crd::NodeProblem p;
  p.node = node;
  if (pod == nullptr) {
    p.reason = "GatewayNotScheduled";
    p.message = "no gateway pod on the node yet (kubectl get ds shows the rollout)";
  } else if (IsFailing(*pod)) {
    p.reason = pod->waiting_reason == "CrashLoopBackOff" ? "GatewayCrashLooping" : "GatewayFailing";
    p.message = pod->waiting_reason + (pod->message.empty() ? "" : ": " + pod->message) +
                "; kubectl logs " + pod->name + " -c gateway";
  } else {
    p.reason = "GatewayNotReady";
    p.message =
        "pod " + pod->name + " is not Ready yet (" +
        (pod->waiting_reason.empty() ? std::string("starting") : pod->waiting_reason) +
        "): its readiness probe signs a ListBuckets against 127.0.0.1:" + std::to_string(port);
  }
  return p;
}

}  // namespace

crd::GatewayPoolStatus ComputePoolStatus(const PoolStatusInputs& in) {
  const crd::GatewayPool& pool = *in.pool;
  const int64_t generation = pool.metadata.generation.value_or(0);
  const std::vector<crd::Condition>* previous = pool.status ? &pool.status->conditions : nullptr;
  const controllers::ConditionSetter set(previous, in.now, generation);
  const std::optional<Track>& track = in.decision.track;
  const auto gateways = ByNode(in.pods, track);

  crd::GatewayPoolStatus s;
  s.observed_generation = generation;

  // Nodes: verified, serving, failing.
  std::vector<crd::NodeProblem> problems;
  size_t verified = 0, ready = 0, failing_gateways = 0, starting = 0;
  std::string unverified_names;
  // Nodes an upgrade has not moved to the spec's track yet are served by another track; nodes
  // under maintenance are out of service on purpose.
  std::set<std::string> served_elsewhere;
  std::map<std::string, const MaintenanceStep*> maintenance;
  if (in.upgrade != nullptr && track) {
    for (const NodeDecision& d : in.upgrade->nodes) {
      if (d.maintenance.applies) {
        maintenance[d.node] = &d.maintenance;
        continue;
      }
      if (NodeRole(d, track->name, track->name) != EndpointRole::kActive && !d.tracks.empty())
        served_elsewhere.insert(d.node);
    }
  }
  size_t in_maintenance = 0;
  for (const SelectedNode& n : in.selected) {
    auto g = gateways.find(n.name);
    const bool serving = g != gateways.end() && g->second.any_ready;
    if (auto m = maintenance.find(n.name); m != maintenance.end()) {
      ++in_maintenance;
      if (s.maintenance_nodes.size() < kMaxMaintenanceNodes) {
        const MaintenanceState& state = *m->second->state;
        s.maintenance_nodes.push_back(
            {n.name, std::string(MaintenancePhaseName(m->second->phase)), state.cause,
             FormatRfc3339(
                 std::chrono::system_clock::time_point(std::chrono::seconds(state.since)))});
      }
      continue;
    }
    if (serving) ++ready;
    if (serving && served_elsewhere.count(n.name)) {
      if (n.verdict.verified) ++verified;
      continue;
    }
    if (!n.verdict.verified) {
      if (!serving) {
        problems.push_back({n.name, n.verdict.reason, n.verdict.message, std::nullopt});
        unverified_names +=
            (unverified_names.empty() ? "" : ", ") + n.name + " (" + n.verdict.reason + ")";
      }
      continue;
    }
    ++verified;
    if (!track) continue;
    const controllers::OwnedPod* pod = g != gateways.end() ? g->second.current : nullptr;
    if (pod != nullptr && pod->ready && !pod->terminating) continue;
    if (pod != nullptr && IsFailing(*pod)) {
      ++failing_gateways;
    } else {
      ++starting;
    }
    problems.push_back(GatewayProblem(n.name, pod, track->s3_port));
  }
  const size_t selected = in.selected.size();
  const size_t not_verified = selected - in_maintenance - verified;
  // "; 1 node under maintenance (status.maintenanceNodes)", or "".
  const std::string maintenance_text =
      in_maintenance == 0
          ? ""
          : "; " + Count(in_maintenance, "node") + " under maintenance (status.maintenanceNodes)";
  crd::GatewayPoolNodeCounts counts;
  counts.selected = static_cast<int32_t>(selected);
  counts.verified = static_cast<int32_t>(verified);
  counts.ready = static_cast<int32_t>(ready);
  const UpgradePlan* up = in.upgrade != nullptr && in.upgrade->active ? in.upgrade : nullptr;
  counts.failed = static_cast<int32_t>(failing_gateways + (up ? up->failed.size() : 0));
  if (in_maintenance > 0) counts.maintenance = static_cast<int32_t>(in_maintenance);
  if (up) counts.upgraded = up->phases.done;
  if (up) {
    for (const crd::NodeProblem& f : up->failed) {
      problems.insert(problems.begin(), {f.node, f.reason,
                                         "upgrade failed, the node still serves the old track: " +
                                             f.message.value_or(""),
                                         std::nullopt});
    }
  }
  counts.ready_of_selected = std::to_string(ready) + "/" + std::to_string(selected);
  s.node_counts = counts;
  if (problems.size() > kMaxFailingNodes) problems.resize(kMaxFailingNodes);
  s.failing_nodes = std::move(problems);

  // Versions running, with node counts.
  std::map<std::string, crd::LibraryTrack> versions;
  for (const auto& p : in.pods) {
    if (p.library_version.empty() || p.node.empty()) continue;
    crd::LibraryTrack& v = versions[p.library_version];
    v.library_version = p.library_version;
    ++v.nodes;
    if (p.ready && !p.terminating) ++v.active_nodes;
  }
  if (track) {
    crd::LibraryTrack& v = versions[track->library_version];
    v.library_version = track->library_version;
    v.gateway_version = track->gateway_version;
    v.s3_port = track->s3_port;
    v.rdma_port = track->rdma_port;
  }
  for (auto& [version, v] : versions) s.versions.push_back(v);
  if (s.versions.size() > 8) s.versions.resize(8);
  if (track) {
    s.library = track->library_version;
  } else if (!s.versions.empty()) {
    s.library =
        std::max_element(s.versions.begin(), s.versions.end(), [](const auto& a, const auto& b) {
          return a.nodes < b.nodes;
        })->library_version;
  }
  const std::string serving_text =
      Count(ready, "node") + (s.library ? " serve libcuobjserver " + *s.library : " serve");

  // Where clients reach the current track (the EndpointSlices carry the same, plus readiness).
  if (track) {
    for (const auto& p : in.pods) {
      if (p.track != track->name || !p.ready || p.terminating || p.ip.empty()) continue;
      if (s.endpoints.size() >= kMaxStatusEndpoints) break;
      s.endpoints.push_back(
          {p.node, p.ip, track->s3_port, track->rdma_port, track->library_version});
    }
    std::sort(s.endpoints.begin(), s.endpoints.end(),
              [](const auto& a, const auto& b) { return a.node < b.node; });
  }

  // LibraryCompatible.
  s.conditions.push_back(set.Make(kLibraryCompatible,
                                  track ? ConditionStatus::kTrue : ConditionStatus::kFalse,
                                  in.decision.reason, in.decision.message));

  // NodesVerified.
  if (in.conflict) {
    s.conditions.push_back(
        set.Make(kNodesVerified, ConditionStatus::kFalse, "PoolConflict", in.conflict->message));
  } else if (selected == 0) {
    s.conditions.push_back(set.Make(kNodesVerified, ConditionStatus::kFalse, "NoNodesSelected",
                                    "nodeSelector " + SelectorText(pool.spec.node_selector) +
                                        " matches no node; label the storage nodes or fix the "
                                        "selector"));
  } else if (not_verified == 0) {
    s.conditions.push_back(set.Make(kNodesVerified, ConditionStatus::kTrue, "AllNodesVerified",
                                    "all " + Count(selected - in_maintenance, "selected node") +
                                        " can run the gateway" + maintenance_text));
  } else {
    s.conditions.push_back(set.Make(
        kNodesVerified, ConditionStatus::kFalse, "NodesNotVerified",
        std::to_string(not_verified) + " of " + Count(selected, "selected node") +
            " cannot run the gateway" + (unverified_names.empty() ? "" : ": " + unverified_names) +
            "; status.failingNodes says why"));
  }

  // Ready: the spec is realised: every verified node serves the current track.
  const bool secret_ok = in.secret == SecretState::kPresent;
  const size_t current_ready = verified - failing_gateways - starting;
  if (!track) {
    s.conditions.push_back(set.Make(kReady, ConditionStatus::kFalse, in.decision.reason,
                                    "the spec is refused (" + in.decision.message + "); " +
                                        serving_text + " from the last accepted spec"));
  } else if (in.conflict) {
    s.conditions.push_back(set.Make(kReady, ConditionStatus::kFalse, "PoolConflict",
                                    "refused: it collides with pool " + in.conflict->other +
                                        " (status NodesVerified says where); " + serving_text +
                                        ", nothing starts"));
  } else if (selected == 0) {
    s.conditions.push_back(set.Make(kReady, ConditionStatus::kFalse, "NoNodesSelected",
                                    "no node matches the nodeSelector"));
  } else if (verified == 0 && in_maintenance == selected) {
    s.conditions.push_back(set.Make(
        kReady, ConditionStatus::kFalse, "AllNodesInMaintenance",
        "every selected node is under maintenance (status.maintenanceNodes): nothing serves "
        "until one is uncordoned or spec.nodeMaintenance is Ignore"));
  } else if (verified == 0) {
    s.conditions.push_back(set.Make(kReady, ConditionStatus::kFalse, "NoNodesVerified",
                                    "none of the " + Count(selected, "selected node") +
                                        " can run the gateway; status.failingNodes says why"));
  } else if (!secret_ok && ready == 0) {
    s.conditions.push_back(
        set.Make(kReady, ConditionStatus::kFalse, in.secret_reason, in.secret_message));
  } else if (current_ready < verified) {
    s.conditions.push_back(set.Make(
        kReady, ConditionStatus::kFalse,
        failing_gateways > 0 ? "GatewaysFailing" : "GatewaysStarting",
        std::to_string(current_ready) + " of " + Count(verified, "verified node") +
            " serve S3 on :" + std::to_string(track->s3_port) +
            (failing_gateways > 0 ? "; " + std::to_string(failing_gateways) + " failing" : "")));
  } else if (up) {
    s.conditions.push_back(set.Make(kReady, ConditionStatus::kTrue, "GatewaysReady",
                                    "every verified node serves S3 (" + Count(ready, "node") +
                                        "); upgrading to libcuobjserver " + track->library_version +
                                        maintenance_text));
  } else {
    s.conditions.push_back(
        set.Make(kReady, ConditionStatus::kTrue, "GatewaysReady",
                 Count(current_ready, "node") + " serve S3 on :" + std::to_string(track->s3_port) +
                     " with libcuobjserver " + track->library_version + maintenance_text));
  }

  // Progressing: gateways of the current spec are still starting somewhere.
  if (!track) {
    s.conditions.push_back(set.Make(kProgressing, ConditionStatus::kFalse, in.decision.reason,
                                    "nothing new is started while the spec is refused"));
  } else if (in.conflict) {
    s.conditions.push_back(
        set.Make(kProgressing, ConditionStatus::kFalse, "PoolConflict",
                 "nothing new is started while the pool collides with " + in.conflict->other));
  } else if (!secret_ok && starting > 0) {
    s.conditions.push_back(
        set.Make(kProgressing, ConditionStatus::kFalse, in.secret_reason, in.secret_message));
  } else if (starting > 0) {
    s.conditions.push_back(set.Make(kProgressing, ConditionStatus::kTrue, "RollingOut",
                                    Count(starting, "gateway") + " starting"));
  } else if (up && !up->paused && !up->halted && up->blocked.empty()) {
    s.conditions.push_back(
        set.Make(kProgressing, ConditionStatus::kTrue, "Upgrading",
                 "nodes are moving to libcuobjserver " + track->library_version));
  } else {
    s.conditions.push_back(set.Make(kProgressing, ConditionStatus::kFalse, "RolloutComplete",
                                    "every verified node runs the current gateway"));
  }

  // Upgrading, and the upgrade in progress.
  if (up) {
    crd::CurrentUpgrade cu;
    std::string from;
    for (const auto& t : up->from) {
      auto it = in.tracks.find(t);
      from += (from.empty() ? "" : ",") + (it != in.tracks.end() ? it->second.library_version : t);
    }
    cu.from = from.empty() ? track->library_version : from;
    cu.to = track->library_version;
    cu.strategy = up->in_place ? "InPlace" : "SideBySide";
    cu.phases = up->phases;
    if (up->started > 0)
      cu.start_time =
          FormatRfc3339(std::chrono::system_clock::time_point(std::chrono::seconds(up->started)));
    cu.progress = std::to_string(up->phases.done) + "/" + std::to_string(up->moving_total);
    s.current_upgrade = cu;
    s.library = cu.from + "->" + cu.to;
    const std::string progress = cu.from + " -> " + cu.to + ": " + *cu.progress + " nodes done";
    std::string failed_names;
    for (const auto& f : up->failed) failed_names += (failed_names.empty() ? "" : ", ") + f.node;
    if (!up->blocked.empty()) {
      s.conditions.push_back(
          set.Make(kUpgrading, ConditionStatus::kTrue, "PortsInUse", up->blocked));
    } else if (up->halted) {
      s.conditions.push_back(
          set.Make(kUpgrading, ConditionStatus::kTrue, "RolloutHalted",
                   progress + "; halted by autoRollback after " + failed_names +
                       " failed (status.failingNodes says why); nodes in flight were rolled back"));
    } else if (up->paused) {
      s.conditions.push_back(set.Make(kUpgrading, ConditionStatus::kTrue, "Paused",
                                      progress + "; paused: no node starts until "
                                                 "spec.upgrade.paused is false"));
    } else if (up->held_by_failed > 0 || up->phases.pending + up->phases.start_new +
                                                 up->phases.validate + up->phases.switch_ +
                                                 up->phases.drain + up->phases.stop_old +
                                                 up->phases.roll_back ==
                                             0) {
      std::string message = progress + "; " + failed_names + " failed and " +
                            (up->in_place ? "may have no serving gateway" : "serve the old track");
      if (up->held_by_failed > 0)
        message += "; " + Count(static_cast<size_t>(up->held_by_failed), "pending node") +
                   " wait: failed nodes hold their maxParallel/maxUnavailable slots until their "
                   "state is cleared (status.failingNodes says why)";
      s.conditions.push_back(set.Make(kUpgrading, ConditionStatus::kTrue, "NodesFailed", message));
    } else {
      s.conditions.push_back(set.Make(kUpgrading, ConditionStatus::kTrue, "RollingOut", progress));
    }
  } else {
    s.conditions.push_back(set.Make(
        kUpgrading, ConditionStatus::kFalse, track ? "UpToDate" : in.decision.reason,
        track ? "every node runs the spec's gateway and libcuobjserver " + track->library_version
              : "nothing is upgraded while the spec is refused"));
  }

  // Degraded: something the user should fix, even while serving.
  if (!track) {
    s.conditions.push_back(set.Make(kDegraded, ConditionStatus::kTrue, "SpecRefused",
                                    in.decision.message + "; " + serving_text + " unchanged"));
  } else if (in.conflict) {
    s.conditions.push_back(set.Make(kDegraded, ConditionStatus::kTrue, "PoolConflict",
                                    in.conflict->message + "; " + serving_text + " unchanged"));
  } else if (!secret_ok) {
    s.conditions.push_back(set.Make(
        kDegraded, ConditionStatus::kTrue, in.secret_reason,
        in.secret_message + "; " + serving_text + ", but no gateway can start or restart"));
  } else if (up && !up->failed.empty()) {
    s.conditions.push_back(set.Make(kDegraded, ConditionStatus::kTrue, "UpgradeFailed",
                                    Count(up->failed.size(), "node") +
                                        " failed the upgrade and serve the old track; "
                                        "status.failingNodes says why"));
  } else if (failing_gateways > 0) {
    s.conditions.push_back(
        set.Make(kDegraded, ConditionStatus::kTrue, "GatewaysFailing",
                 Count(failing_gateways, "gateway") + " failing; status.failingNodes says why"));
  } else if (selected > 0 && not_verified > 0) {
    s.conditions.push_back(set.Make(kDegraded, ConditionStatus::kTrue, "NodesNotVerified",
                                    std::to_string(not_verified) + " of " +
                                        Count(selected, "selected node") +
                                        " cannot run the gateway"));
  } else {
    s.conditions.push_back(
        set.Make(kDegraded, ConditionStatus::kFalse, "AsExpected", "nothing needs attention"));
  }
  return s;
}

}  // namespace rdmastack::gatewaypool
