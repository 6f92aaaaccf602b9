#include "controllers/gatewaypool/pool_status.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "base/rfc3339.h"
#include "controllers/common/conditions.h"
#include "controllers/gatewaypool/pool_conditions.h"
#include "controllers/gatewaypool/pool_node_tally.h"
#include "controllers/gatewaypool/rails.h"

namespace rdmastack::gatewaypool {
namespace {

// The library versions the pool's gateways run, with node counts, and the spec's.
std::vector<crd::LibraryTrack> VersionsRunning(const PoolStatusInputs& in) {
  const std::optional<Track>& track = in.decision.track;
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
  std::vector<crd::LibraryTrack> out;
  for (auto& [version, v] : versions) out.push_back(v);
  if (out.size() > 8) out.resize(8);
  return out;
}

// Where clients reach the current track (the EndpointSlices carry the same, plus readiness).
std::vector<crd::Endpoint> Endpoints(const PoolStatusInputs& in) {
  std::vector<crd::Endpoint> out;
  const std::optional<Track>& track = in.decision.track;
  if (!track) return out;
  const std::vector<Rail> rails = RailsOf(in.pool->spec, *track);
  const VerdictsByNode verdicts = IndexVerdicts(in.selected);
  for (const auto& p : in.pods) {
    if (p.track != track->name || !p.ready || p.terminating || p.ip.empty()) continue;
    if (out.size() >= kMaxStatusEndpoints) break;
    crd::Endpoint e{p.node, p.ip, track->s3_port, track->rdma_port, track->library_version, {}};
    if (!in.pool->spec.rdma.rails.empty()) {
      for (const Rail& rail : rails) {
        if (!RailServesOn(verdicts, p.node, rail.name)) continue;
        if (e.rails.empty()) e.s3_port = rail.s3_port, e.rdma_port = rail.rdma_port;
        e.rails.push_back(rail.name);
      }
      if (e.rails.empty()) continue;
    }
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.node < b.node; });
  return out;
}

// The networks the pool's gateways serve on: each verified node's rail address's network, in
// rail order, each once.
std::vector<crd::PoolNetwork> Networks(const PoolStatusInputs& in) {
  std::vector<std::pair<size_t, crd::PoolNetwork>> found;  // rail index, network
  auto add = [&](size_t rail, std::optional<std::string> name, const std::string& cidr) {
    if (cidr.empty()) return;
    crd::PoolNetwork n{std::move(name), cidr};
    for (const auto& [i, f] : found) {
      if (f == n) return;
    }
    found.emplace_back(rail, std::move(n));
  };
  for (const SelectedNode& n : in.selected) {
    if (!n.verdict.verified) continue;
    if (n.verdict.rails.empty()) add(0, std::nullopt, n.verdict.rdma_network);
    for (size_t i = 0; i < n.verdict.rails.size(); ++i) {
      add(i, n.verdict.rails[i].name, n.verdict.rails[i].network);
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second.cidr) < std::tie(b.first, b.second.cidr);
  });
  std::vector<crd::PoolNetwork> out;
  for (auto& [i, n] : found) {
    if (out.size() >= kMaxPoolNetworks) break;
    out.push_back(std::move(n));
  }
  return out;
}

// The upgrade under way, as status.currentUpgrade shows it.
crd::CurrentUpgrade CurrentUpgradeOf(const PoolStatusInputs& in, const UpgradePlan& up) {
  const Track& track = *in.decision.track;
  crd::CurrentUpgrade cu;
  std::string from;
  for (const auto& t : up.from) {
    auto it = in.tracks.find(t);
    from += (from.empty() ? "" : ",") + (it != in.tracks.end() ? it->second.library_version : t);
  }
  cu.from = from.empty() ? track.library_version : from;
  cu.to = track.library_version;
  cu.strategy = up.in_place ? "InPlace" : "SideBySide";
  cu.phases = up.phases;
  if (up.started > 0)
    cu.start_time =
        FormatRfc3339(std::chrono::system_clock::time_point(std::chrono::seconds(up.started)));
  cu.progress = std::to_string(up.phases.done) + "/" + std::to_string(up.moving_total);
  return cu;
}

}  // namespace

VerdictsByNode IndexVerdicts(const std::vector<SelectedNode>& selected) {
  VerdictsByNode out;
  for (const SelectedNode& n : selected) out[n.name] = &n.verdict;
  return out;
}

bool RailServesOn(const VerdictsByNode& verdicts, const std::string& node, std::string_view rail) {
  auto v = verdicts.find(node);
  return v == verdicts.end() || RailServes(*v->second, rail);
}

crd::GatewayPoolStatus ComputePoolStatus(const PoolStatusInputs& in) {
  const crd::GatewayPool& pool = *in.pool;
  const int64_t generation = pool.metadata.generation.value_or(0);
  const std::vector<crd::Condition>* previous = pool.status ? &pool.status->conditions : nullptr;
  const controllers::ConditionSetter set(previous, in.now, generation);
  const std::optional<Track>& track = in.decision.track;

  crd::GatewayPoolStatus s;
  s.observed_generation = generation;
  const PoolNodeTally nodes = TallyPoolNodes(in);
  s.node_counts = nodes.counts;
  s.failing_nodes = nodes.failing;
  s.degraded_nodes = nodes.degraded;
  s.maintenance_nodes = nodes.maintenance;
  s.networks = Networks(in);
  s.versions = VersionsRunning(in);
  if (track) {
    s.library = track->library_version;
  } else if (!s.versions.empty()) {
    s.library =
        std::max_element(s.versions.begin(), s.versions.end(), [](const auto& a, const auto& b) {
          return a.nodes < b.nodes;
        })->library_version;
  }
  s.endpoints = Endpoints(in);

  const PoolFacts f{
      in, nodes,
      Count(nodes.ready, "node") + (s.library ? " serve libcuobjserver " + *s.library : " serve"),
      set};
  if (nodes.upgrade != nullptr) {
    s.current_upgrade = CurrentUpgradeOf(in, *nodes.upgrade);
    s.library = s.current_upgrade->from + "->" + s.current_upgrade->to;
  }
  s.conditions = {LibraryCompatibleCondition(f),
                  NodesVerifiedCondition(f),
                  ReadyCondition(f),
                  ProgressingCondition(f),
                  UpgradingCondition(f, s.current_upgrade),
                  DegradedCondition(f)};
  return s;
}

Clock::Duration StatusHoldBack(const std::optional<crd::GatewayPoolStatus>& written,
                               const crd::GatewayPoolStatus& now, Clock::Duration since_last_write,
                               Clock::Duration interval) {
  if (!written || !written->current_upgrade || !now.current_upgrade) return {};
  auto key = [](const crd::Condition& c) { return std::tie(c.type, c.status, c.reason); };
  if (written->conditions.size() != now.conditions.size()) return {};
  for (size_t i = 0; i < now.conditions.size(); ++i) {
    if (key(written->conditions[i]) != key(now.conditions[i])) return {};
  }
  if (written->failing_nodes != now.failing_nodes ||
      written->maintenance_nodes != now.maintenance_nodes)
    return {};
  return since_last_write >= interval ? Clock::Duration{} : interval - since_last_write;
}

}  // namespace rdmastack::gatewaypool
