#include "controllers/gatewaypool/pool_node_tally.h"

#include <map>
#include <set>

#include "base/rfc3339.h"
#include "lib/compat/named_refusal.h"

namespace rdmastack::gatewaypool {
namespace {

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
    if (std::optional<std::string_view> named = compat::NamedRefusalReason(pod->message))
      p.reason = *named;
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

std::string Count(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

PoolNodeTally TallyPoolNodes(const PoolStatusInputs& in) {
  const std::optional<Track>& track = in.decision.track;
  const auto gateways = ByNode(in.pods, track);
  PoolNodeTally t;
  std::vector<crd::NodeProblem> problems;
  std::vector<std::string> failing_gateway_nodes;
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
  for (const SelectedNode& n : in.selected) {
    auto g = gateways.find(n.name);
    const bool serving = g != gateways.end() && g->second.any_ready;
    if (auto m = maintenance.find(n.name); m != maintenance.end()) {
      ++t.in_maintenance;
      if (t.maintenance.size() < kMaxMaintenanceNodes) {
        const MaintenanceState& state = *m->second->state;
        t.maintenance.push_back(
            {n.name, std::string(MaintenancePhaseName(m->second->phase)), state.cause,
             FormatRfc3339(
                 std::chrono::system_clock::time_point(std::chrono::seconds(state.since)))});
      }
      continue;
    }
    if (serving) ++t.ready;
    if (serving && served_elsewhere.count(n.name)) {
      if (n.verdict.verified) ++t.verified;
      continue;
    }
    if (!n.verdict.verified) {
      if (!serving) {
        problems.push_back({n.name, n.verdict.reason, n.verdict.message, std::nullopt});
        t.unverified_names +=
            (t.unverified_names.empty() ? "" : ", ") + n.name + " (" + n.verdict.reason + ")";
      }
      continue;
    }
    ++t.verified;
    if (!track) continue;
    const controllers::OwnedPod* pod = g != gateways.end() ? g->second.current : nullptr;
    if (pod != nullptr && pod->ready && !pod->terminating) continue;
    if (pod != nullptr && IsFailing(*pod)) {
      ++t.failing_gateways;
      failing_gateway_nodes.push_back(n.name);
    } else {
      ++t.starting;
    }
    problems.push_back(GatewayProblem(n.name, pod, track->s3_port));
  }
  t.selected = in.selected.size();
  t.not_verified = t.selected - t.in_maintenance - t.verified;
  t.maintenance_text = t.in_maintenance == 0 ? ""
                                             : "; " + Count(t.in_maintenance, "node") +
                                                   " under maintenance (status.maintenanceNodes)";
  crd::GatewayPoolNodeCounts& counts = t.counts;
  counts.selected = static_cast<int32_t>(t.selected);
  counts.verified = static_cast<int32_t>(t.verified);
  counts.ready = static_cast<int32_t>(t.ready);
  const UpgradePlan* up = in.upgrade != nullptr && in.upgrade->active ? in.upgrade : nullptr;
  t.upgrade = up;
  // A node whose upgrade failed is listed (and counted) once, for that failure, which says that
  // it still serves the old track; what its gateway pod does now is left out: failingNodes is a
  // list-map keyed by node, and the API server refuses a status that names a node twice.
  std::set<std::string> failed_upgrade;
  if (up) {
    std::vector<crd::NodeProblem> upgrade_problems;
    for (const crd::NodeProblem& f : up->failed) {
      if (!failed_upgrade.insert(f.node).second) continue;
      upgrade_problems.push_back(
          {f.node, f.reason,
           "upgrade failed, the node still serves the old track: " + f.message.value_or(""),
           std::nullopt});
    }
    std::erase_if(problems,
                  [&](const crd::NodeProblem& p) { return failed_upgrade.count(p.node); });
    problems.insert(problems.begin(), upgrade_problems.begin(), upgrade_problems.end());
  }
  size_t failed = failed_upgrade.size();
  for (const std::string& node : failing_gateway_nodes) failed += !failed_upgrade.count(node);
  counts.failed = static_cast<int32_t>(failed);
  if (t.in_maintenance > 0) counts.maintenance = static_cast<int32_t>(t.in_maintenance);
  if (up) counts.upgraded = up->phases.done;
  counts.ready_of_selected = std::to_string(t.ready) + "/" + std::to_string(t.selected);
  if (problems.size() > kMaxFailingNodes) problems.resize(kMaxFailingNodes);
  t.failing = std::move(problems);
  return t;
}

}  // namespace rdmastack::gatewaypool
