#include "controllers/metrics/pool_metrics.h"

#include <map>
#include <set>
#include <string>

#include "controllers/metrics/condition_metrics.h"
#include "controllers/metrics/family_set.h"

namespace rdmastack::statusmetrics {
namespace {

constexpr char kPoolPrefix[] = "rdmastack_gatewaypool";
constexpr char kPoolNodes[] = "rdmastack_gatewaypool_nodes";
constexpr char kEndpoints[] = "rdmastack_gatewaypool_endpoints";
constexpr char kTrackNodes[] = "rdmastack_gatewaypool_track_nodes";
constexpr char kTrackActive[] = "rdmastack_gatewaypool_track_active_nodes";
constexpr char kLibraryInfo[] = "rdmastack_gatewaypool_library_info";
constexpr char kNodeLibrary[] = "rdmastack_gatewaypool_node_library_info";
constexpr char kUpgrading[] = "rdmastack_gatewaypool_upgrade_in_progress";
constexpr char kUpgradeNodes[] = "rdmastack_gatewaypool_upgrade_nodes";
constexpr char kFailing[] = "rdmastack_gatewaypool_failing_nodes";
constexpr char kDegraded[] = "rdmastack_gatewaypool_degraded_nodes";

void Declare(FamilySet& set) {
  set.Declare(kPoolNodes,
              "Nodes of a GatewayPool by state (status.nodeCounts): selected, verified, ready, "
              "upgraded, failed, maintenance.");
  DeclareConditionFamilies(set, kPoolPrefix, "GatewayPool");
  set.Declare(kEndpoints, "S3 endpoints a GatewayPool publishes, per library track.");
  set.Declare(kTrackNodes, "Nodes on each library track of a GatewayPool.");
  set.Declare(kTrackActive, "Nodes whose endpoint on each library track is in service.");
  set.Declare(kLibraryInfo, "Each library track of a GatewayPool (value 1).");
  set.Declare(kNodeLibrary, "The library a node's published gateway runs (value 1).");
  set.Declare(kUpgrading, "1 while a GatewayPool is moving to another library version, else 0.");
  set.Declare(kUpgradeNodes,
              "Nodes of the current upgrade by phase; present only while an upgrade runs.");
  set.Declare(kFailing, "Nodes of a GatewayPool listed as failing, by reason.");
  set.Declare(
      kDegraded,
      "Nodes of a GatewayPool that serve on fewer rails than it has (status.degradedNodes), "
      "by reason.");
}

void AddNodeCounts(FamilySet& set, const Labels& pool, const crd::GatewayPoolNodeCounts& c) {
  const std::pair<const char*, int32_t> states[] = {
      {"selected", c.selected}, {"verified", c.verified},
      {"ready", c.ready},       {"upgraded", c.upgraded},
      {"failed", c.failed},     {"maintenance", c.maintenance.value_or(0)}};
  for (const auto& [state, n] : states) set.Add(kPoolNodes, With(pool, {{"state", state}}), n);
}

void AddTracks(FamilySet& set, const Labels& pool, const crd::GatewayPoolStatus& status) {
  std::map<std::string, int> endpoints;
  for (const crd::LibraryTrack& t : status.versions) endpoints[t.library_version] = 0;
  for (const crd::Endpoint& e : status.endpoints) {
    const std::string version = e.library_version.value_or(status.library.value_or(""));
    ++endpoints[version];
    set.Add(kNodeLibrary, With(pool, {{"node", e.node}, {"library_version", version}}), 1);
  }
  for (const auto& [version, n] : endpoints) {
    set.Add(kEndpoints, With(pool, {{"library_version", version}}), n);
  }
  for (const crd::LibraryTrack& t : status.versions) {
    const Labels track = With(pool, {{"library_version", t.library_version}});
    set.Add(kTrackNodes, track, t.nodes);
    set.Add(kTrackActive, track, t.active_nodes);
    set.Add(kLibraryInfo,
            With(track, {{"gateway_version", t.gateway_version.value_or("")},
                         {"s3_port", t.s3_port ? std::to_string(*t.s3_port) : ""}}),
            1);
  }
}

void AddUpgrade(FamilySet& set, const Labels& pool, const std::optional<crd::CurrentUpgrade>& up) {
  set.Add(kUpgrading, pool, up ? 1 : 0);
  if (!up) return;
  const crd::UpgradePhaseCounts& p = up->phases;
  const std::pair<const char*, int32_t> phases[] = {
      {"Pending", p.pending}, {"StartNew", p.start_new}, {"Validate", p.validate},
      {"Switch", p.switch_},  {"Drain", p.drain},        {"StopOld", p.stop_old},
      {"Done", p.done},       {"RollBack", p.roll_back}, {"Failed", p.failed}};
  for (const auto& [phase, n] : phases) set.Add(kUpgradeNodes, With(pool, {{"phase", phase}}), n);
}

}  // namespace

std::vector<runtime::SampledFamily> PoolMetrics(const std::vector<crd::GatewayPool>& pools) {
  FamilySet set;
  Declare(set);
  for (const crd::GatewayPool& pool : pools) {
    const Labels labels = {{"namespace", pool.metadata.namespace_.value_or("")},
                           {"gatewaypool", pool.metadata.name}};
    // A pool the operator has not reconciled yet has no status: nothing to say about it but
    // that no upgrade runs.
    if (!pool.status) {
      set.Add(kUpgrading, labels, 0);
      continue;
    }
    const crd::GatewayPoolStatus& status = *pool.status;
    if (status.node_counts) AddNodeCounts(set, labels, *status.node_counts);
    AddConditions(set, kPoolPrefix, labels, status.conditions);
    AddTracks(set, labels, status);
    AddUpgrade(set, labels, status.current_upgrade);
    for (const auto& [family, problems] : {std::pair{kFailing, &status.failing_nodes},
                                           std::pair{kDegraded, &status.degraded_nodes}}) {
      std::map<std::string, int> by_reason;
      for (const crd::NodeProblem& p : *problems) ++by_reason[p.reason];
      for (const auto& [reason, n] : by_reason)
        set.Add(family, With(labels, {{"reason", reason}}), n);
    }
  }
  return std::move(set).Take();
}

}  // namespace rdmastack::statusmetrics
