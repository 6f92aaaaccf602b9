#include "cli/kubectl-rdmastack/upgrade_view.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <tuple>

#include "base/rfc3339.h"
#include "cli/kubectl-rdmastack/text.h"
#include "crds/types/gatewaypool_api.h"
#include "crds/types/node_upgrade.h"

namespace rdmastack::plugin {
namespace {

// Library versions the pool mentions, newest mention first, to name a track ("v2") by the
// version it runs ("2.0.0.109").
std::vector<std::string> KnownVersions(const crd::GatewayPool& pool) {
  std::vector<std::string> versions;
  if (pool.status && pool.status->current_upgrade) {
    versions.push_back(pool.status->current_upgrade->to);
    const std::string& from = pool.status->current_upgrade->from;  // "a" or "a,b"
    size_t start = 0;
    while (start <= from.size()) {
      const size_t comma = std::min(from.find(',', start), from.size());
      versions.push_back(from.substr(start, comma - start));
      start = comma + 1;
    }
  }
  versions.push_back(pool.spec.server_library.version);
  if (pool.status) {
    for (const crd::LibraryTrack& t : pool.status->versions) versions.push_back(t.library_version);
  }
  return versions;
}

std::string TrackVersion(const std::string& track, const std::vector<std::string>& versions) {
  if (track.size() < 2 || track.front() != 'v') return track;
  const std::string major = track.substr(1);
  for (const std::string& v : versions) {
    if (v.substr(0, v.find('.')) == major) return v;
  }
  // A track the pool no longer names (a finished upgrade's old one): its library major.
  return major + ".x";
}

std::string SpecTrack(const crd::GatewayPool& pool) {
  auto major = crd::LibraryMajor(pool.spec.server_library.version);
  return major.ok() ? gatewaypool::TrackName(*major) : "";
}

NodeUpgradeRow RowFromState(const std::string& node, std::string_view annotation,
                            const std::vector<std::string>& versions, int64_t now) {
  NodeUpgradeRow row;
  row.node = node;
  StatusOr<gatewaypool::NodeUpgradeState> state = gatewaypool::ParseNodeUpgradeState(annotation);
  if (!state.ok()) {
    row.phase = "Unreadable";
    row.message = state.status().message();
    return row;
  }
  row.phase = std::string(gatewaypool::PhaseName(state->phase));
  row.from = TrackVersion(state->from, versions);
  row.to = TrackVersion(state->to, versions);
  row.in_place = state->in_place;
  if (state->since > 0) {
    row.in_phase_for = now - state->since;
    row.since =
        FormatRfc3339(std::chrono::system_clock::time_point(std::chrono::seconds(state->since)));
  }
  row.reason = state->reason;
  row.message = state->message;
  return row;
}

// A node of the pool without a persisted state: on the spec's track, or waiting to leave another.
NodeUpgradeRow RowFromTracks(const std::string& node, const std::set<std::string>& tracks,
                             const std::string& target, const std::vector<std::string>& versions) {
  NodeUpgradeRow row;
  row.node = node;
  const bool up_to_date = tracks == std::set<std::string>{target};
  row.phase = up_to_date ? "UpToDate" : "Pending";
  for (const std::string& t : tracks) {
    if (t == target && !up_to_date) continue;
    row.from += (row.from.empty() ? "" : ",") + TrackVersion(t, versions);
  }
  if (!up_to_date) row.to = TrackVersion(target, versions);
  return row;
}

void AddNodeRows(const crd::GatewayPool& pool, const std::vector<NodeInfo>& nodes, int64_t now,
                 UpgradeView& v) {
  const std::string ns = pool.metadata.namespace_.value_or("");
  const std::string annotation = gatewaypool::NodeUpgradeAnnotation(ns, pool.metadata.name);
  const std::vector<std::string> versions = KnownVersions(pool);
  const std::string target = SpecTrack(pool);
  for (const NodeInfo& node : nodes) {
    if (auto it = node.annotations.find(annotation); it != node.annotations.end()) {
      v.nodes.push_back(RowFromState(node.name, it->second, versions, now));
      continue;
    }
    std::set<std::string> tracks;
    for (const auto& [key, value] : node.labels) {
      if (gatewaypool::IsNodeTrackLabelOf(key, ns, pool.metadata.name))
        tracks.insert(key.substr(key.rfind('.') + 1));
    }
    if (!tracks.empty()) v.nodes.push_back(RowFromTracks(node.name, tracks, target, versions));
  }
  std::sort(v.nodes.begin(), v.nodes.end(),
            [](const auto& a, const auto& b) { return a.node < b.node; });
}

}  // namespace

UpgradeView BuildUpgradeView(const crd::GatewayPool& pool,
                             const std::optional<std::vector<NodeInfo>>& nodes,
                             const std::string& nodes_error, int64_t now) {
  UpgradeView v;
  v.namespace_ = pool.metadata.namespace_.value_or("");
  v.name = pool.metadata.name;
  v.policy = pool.spec.upgrade;
  v.library = pool.spec.server_library.version;
  v.upgrading =
      SummarizeCondition(pool.status ? pool.status->conditions : std::vector<crd::Condition>{},
                         gatewaypool::kUpgrading, pool.status.has_value());
  if (pool.status) {
    const crd::GatewayPoolStatus& s = *pool.status;
    if (s.library) v.library = *s.library;
    if (s.current_upgrade) {
      const crd::CurrentUpgrade& cu = *s.current_upgrade;
      v.in_progress = true;
      v.from = cu.from;
      v.to = cu.to;
      v.strategy = cu.strategy;
      v.start_time = cu.start_time.value_or("");
      v.running_for = SecondsSince(v.start_time, now).value_or(-1);
      std::tie(v.done, v.total) = ParseProgress(cu.progress.value_or(""));
      v.phases = cu.phases;
    }
  }

  if (nodes) {
    v.nodes_listed = true;
    AddNodeRows(pool, *nodes, now, v);
    for (const NodeUpgradeRow& row : v.nodes) {
      if (row.phase == "Failed" || row.phase == "RollBack" || row.phase == "Unreadable")
        v.failures.push_back({row.node, row.phase, row.reason, row.message});
    }
  } else {
    v.notes.push_back("per-node phases are not shown: " + nodes_error);
  }
  // Nodes the pool reports as failing and no node state explains (gateways failing outside an
  // upgrade, or every failure when the Nodes could not be read).
  if (pool.status) {
    for (const crd::NodeProblem& p : pool.status->failing_nodes) {
      const bool known = std::any_of(v.failures.begin(), v.failures.end(),
                                     [&p](const UpgradeFailure& f) { return f.node == p.node; });
      if (!known) v.failures.push_back({p.node, "", p.reason, p.message.value_or("")});
    }
  }
  return v;
}

}  // namespace rdmastack::plugin
