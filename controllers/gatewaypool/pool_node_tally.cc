#include "controllers/gatewaypool/pool_node_tally.h"

#include <map>
#include <set>

#include "base/rfc3339.h"
#include "crds/types/reasons.h"
#include "lib/compat/named_refusal.h"

namespace rdmastack::gatewaypool {

namespace reasons = crd::reasons;

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
    p.reason = reasons::kGatewayNotScheduled;
    p.message = "no gateway pod on the node yet (kubectl get ds shows the rollout)";
  } else if (IsFailing(*pod)) {
    p.reason = pod->waiting_reason == "CrashLoopBackOff" ? reasons::kGatewayCrashLooping
                                                         : reasons::kGatewayFailing;
    if (std::optional<std::string_view> named = compat::NamedRefusalReason(pod->message))
      p.reason = *named;
    p.message = pod->waiting_reason + (pod->message.empty() ? "" : ": " + pod->message) +
                "; kubectl logs " + pod->name + " -c gateway";
  } else {
    p.reason = reasons::kGatewayNotReady;
    p.message =
        "pod " + pod->name + " is not Ready yet (" +
        (pod->waiting_reason.empty() ? std::string("starting") : pod->waiting_reason) +
        "): its readiness probe signs a ListBuckets against 127.0.0.1:" + std::to_string(port);
  }
  return p;
}

// How the upgrade under way treats the nodes: those it took out for maintenance, and those it
// still serves from another track than the spec's.
struct UpgradeView {
  std::map<std::string, const MaintenanceStep*> maintenance;
  std::set<std::string> served_elsewhere;
};

UpgradeView ViewOfUpgrade(const UpgradePlan* upgrade, const std::optional<Track>& track) {
  UpgradeView v;
  if (upgrade == nullptr || !track) return v;
  for (const NodeDecision& d : upgrade->nodes) {
    if (d.maintenance.applies) {
      v.maintenance[d.node] = &d.maintenance;
      continue;
    }
    if (NodeRole(d, track->name, track->name) != EndpointRole::kActive && !d.tracks.empty())
      v.served_elsewhere.insert(d.node);
  }
  return v;
}

crd::MaintenanceNode MaintenanceEntry(const std::string& node, const MaintenanceStep& step) {
  const MaintenanceState& state = *step.state;
  return {node, std::string(MaintenancePhaseName(step.phase)), state.cause,
          FormatRfc3339(std::chrono::system_clock::time_point(std::chrono::seconds(state.since)))};
}

// The counts of one pass over the selected nodes, and the problems it found.
struct NodeFindings {
  PoolNodeTally tally;
  std::vector<crd::NodeProblem> problems;
  std::vector<std::string> failing_gateway_nodes;  // verified, with a failing gateway
};

class NodePass {
 public:
  explicit NodePass(const PoolStatusInputs& in)
      : track_(in.decision.track),
        gateways_(ByNode(in.pods, track_)),
        upgrade_(ViewOfUpgrade(in.upgrade, track_)) {}

  NodeFindings Run(const std::vector<SelectedNode>& selected) && {
    for (const SelectedNode& n : selected) Add(n);
    return std::move(f_);
  }

 private:
  void Add(const SelectedNode& n);
  void AddUnverified(const SelectedNode& n);
  void AddGateway(const std::string& node, const controllers::OwnedPod* pod);

  const std::optional<Track>& track_;
  const std::map<std::string, NodeGateway> gateways_;
  const UpgradeView upgrade_;
  NodeFindings f_;
};

// A verified node of a multi-rail pool with a rail down: which, why, and what still serves.
void AddRailsDown(const SelectedNode& n, PoolNodeTally* t) {
  if (!n.verdict.RailsDown()) return;
  std::string down, up;
  for (const RailVerdict& r : n.verdict.rails) {
    if (r.up) {
      up += (up.empty() ? "" : ", ") + r.name;
    } else {
      down += (down.empty() ? "" : "; ") + ("rail " + r.name + " (" + r.address + "): " + r.down);
    }
  }
  if (t->degraded.size() >= kMaxFailingNodes) return;
  t->degraded.push_back({n.name, crd::reasons::kRailDown,
                         down + (up.empty() ? "; no rail is up" : "; serving on " + up),
                         std::nullopt});
}

void NodePass::Add(const SelectedNode& n) {
  PoolNodeTally& t = f_.tally;
  auto g = gateways_.find(n.name);
  const bool serving = g != gateways_.end() && g->second.any_ready;
  if (auto m = upgrade_.maintenance.find(n.name); m != upgrade_.maintenance.end()) {
    ++t.in_maintenance;
    if (t.maintenance.size() < kMaxMaintenanceNodes)
      t.maintenance.push_back(MaintenanceEntry(n.name, *m->second));
    return;
  }
  if (serving) ++t.ready;
  if (n.verdict.verified) AddRailsDown(n, &t);
  if (serving && upgrade_.served_elsewhere.count(n.name)) {
    if (n.verdict.verified) ++t.verified;
    return;
  }
  if (!n.verdict.verified) {
    if (!serving) AddUnverified(n);
    return;
  }
  ++t.verified;
  if (!track_) return;
  AddGateway(n.name, g != gateways_.end() ? g->second.current : nullptr);
}

void NodePass::AddUnverified(const SelectedNode& n) {
  f_.problems.push_back({n.name, n.verdict.reason, n.verdict.message, std::nullopt});
  std::string& names = f_.tally.unverified_names;
  names += (names.empty() ? "" : ", ") + n.name + " (" + n.verdict.reason + ")";
}

// A verified node's gateway of the spec's track, unless it serves.
void NodePass::AddGateway(const std::string& node, const controllers::OwnedPod* pod) {
  if (pod != nullptr && pod->ready && !pod->terminating) return;
  if (pod != nullptr && IsFailing(*pod)) {
    ++f_.tally.failing_gateways;
    f_.failing_gateway_nodes.push_back(node);
  } else {
    ++f_.tally.starting;
  }
  f_.problems.push_back(GatewayProblem(node, pod, track_->s3_port));
}

// A node whose upgrade failed is listed (and counted) once, for that failure, which says that
// it still serves the old track; what its gateway pod does now is left out: failingNodes is a
// list-map keyed by node, and the API server refuses a status that names a node twice. Returns
// those nodes.
std::set<std::string> LeadWithUpgradeFailures(const UpgradePlan& up,
                                              std::vector<crd::NodeProblem>& problems) {
  std::set<std::string> failed_upgrade;
  std::vector<crd::NodeProblem> upgrade_problems;
  for (const crd::NodeProblem& f : up.failed) {
    if (!failed_upgrade.insert(f.node).second) continue;
    upgrade_problems.push_back(
        {f.node, f.reason,
         "upgrade failed, the node still serves the old track: " + f.message.value_or(""),
         std::nullopt});
  }
  std::erase_if(problems, [&](const crd::NodeProblem& p) { return failed_upgrade.count(p.node); });
  problems.insert(problems.begin(), upgrade_problems.begin(), upgrade_problems.end());
  return failed_upgrade;
}

crd::GatewayPoolNodeCounts NodeCounts(const PoolNodeTally& t, size_t failed) {
  crd::GatewayPoolNodeCounts counts;
  counts.selected = static_cast<int32_t>(t.selected);
  counts.verified = static_cast<int32_t>(t.verified);
  counts.ready = static_cast<int32_t>(t.ready);
  counts.failed = static_cast<int32_t>(failed);
  if (t.in_maintenance > 0) counts.maintenance = static_cast<int32_t>(t.in_maintenance);
  if (t.upgrade) counts.upgraded = t.upgrade->phases.done;
  counts.ready_of_selected = std::to_string(t.ready) + "/" + std::to_string(t.selected);
  return counts;
}

}  // namespace

std::string Count(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

PoolNodeTally TallyPoolNodes(const PoolStatusInputs& in) {
  NodeFindings f = NodePass(in).Run(in.selected);
  PoolNodeTally t = std::move(f.tally);
  t.selected = in.selected.size();
  t.not_verified = t.selected - t.in_maintenance - t.verified;
  t.maintenance_text = t.in_maintenance == 0 ? ""
                                             : "; " + Count(t.in_maintenance, "node") +
                                                   " under maintenance (status.maintenanceNodes)";
  t.upgrade = in.upgrade != nullptr && in.upgrade->active ? in.upgrade : nullptr;
  std::set<std::string> failed_upgrade;
  if (t.upgrade) failed_upgrade = LeadWithUpgradeFailures(*t.upgrade, f.problems);
  size_t failed = failed_upgrade.size();
  for (const std::string& node : f.failing_gateway_nodes) failed += !failed_upgrade.count(node);
  t.counts = NodeCounts(t, failed);
  if (f.problems.size() > kMaxFailingNodes) f.problems.resize(kMaxFailingNodes);
  t.failing = std::move(f.problems);
  return t;
}

}  // namespace rdmastack::gatewaypool
