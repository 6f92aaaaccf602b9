#include "controllers/metrics/pool_metrics.h"

#include <gtest/gtest.h>

#include "controllers/metrics/tests/series_lookup.h"
#include "tests/harness/golden.h"

namespace rdmastack::statusmetrics {
namespace {

using testing::Count;
using testing::Value;

crd::GatewayPool UpgradingPool() {
  crd::GatewayPool pool;
  pool.metadata.name = "seed";
  pool.metadata.namespace_ = "storage";
  crd::GatewayPoolStatus& s = pool.status.emplace();
  s.library = "1.2.0.68";
  s.node_counts = crd::GatewayPoolNodeCounts{.selected = 4,
                                             .verified = 3,
                                             .ready = 2,
                                             .upgraded = 1,
                                             .failed = 1,
                                             .maintenance = std::nullopt,
                                             .ready_of_selected = "2/4"};
  s.conditions = {
      {"Ready", crd::ConditionStatus::kFalse, 1, "2026-12-05T10:00:00Z", "NodesNotReady", ""},
      {"Upgrading", crd::ConditionStatus::kTrue, 1, "2026-12-05T09:59:00Z", "RolloutHalted", ""}};
  s.versions = {{"1.2.0.68", "1.8.0-cuobj1", 7071, 19100, 3, 2},
                {"2.0.0.109", "1.8.0-cuobj2", 7072, 19101, 1, 0}};
  s.endpoints = {{"stg-node-0", "198.18.0.10", 7071, 19100, "1.2.0.68"},
                 {"stg-node-1", "198.18.0.11", 7071, 19100, std::nullopt}};
  s.failing_nodes = {{"stg-node-3", "ValidationFailed", "probe failed", std::nullopt},
                     {"stg-node-2", "ValidationFailed", std::nullopt, std::nullopt}};
  crd::CurrentUpgrade& up = s.current_upgrade.emplace();
  up.from = "1.2.0.68";
  up.to = "2.0.0.109";
  up.phases.pending = 2;
  up.phases.failed = 1;
  up.phases.done = 1;
  return pool;
}

const Labels kSeed = {{"namespace", "storage"}, {"gatewaypool", "seed"}};

Labels Seed(std::initializer_list<std::pair<std::string, std::string>> more) {
  return With(kSeed, more);
}

TEST(PoolMetricsTest, NodeCountsByState) {
  const auto m = PoolMetrics({UpgradingPool()});
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_nodes", Seed({{"state", "selected"}})), 4);
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_nodes", Seed({{"state", "verified"}})), 3);
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_nodes", Seed({{"state", "ready"}})), 2);
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_nodes", Seed({{"state", "failed"}})), 1);
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_nodes", Seed({{"state", "maintenance"}})), 0);
}

TEST(PoolMetricsTest, ConditionsHaveOneSeriesPerStatusTheReasonAndTheTransitionTime) {
  const auto m = PoolMetrics({UpgradingPool()});
  EXPECT_EQ(
      Value(m, "rdmastack_gatewaypool_condition", Seed({{"type", "Ready"}, {"status", "True"}})),
      0);
  EXPECT_EQ(
      Value(m, "rdmastack_gatewaypool_condition", Seed({{"type", "Ready"}, {"status", "False"}})),
      1);
  EXPECT_EQ(
      Value(m, "rdmastack_gatewaypool_condition", Seed({{"type", "Ready"}, {"status", "Unknown"}})),
      0);
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_condition_reason",
                  Seed({{"type", "Upgrading"}, {"reason", "RolloutHalted"}})),
            1);
  EXPECT_EQ(Count(m, "rdmastack_gatewaypool_condition_reason"), 2u);
  // 2026-12-05T10:00:00Z
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_condition_last_transition_timestamp_seconds",
                  Seed({{"type", "Ready"}})),
            1796464800);
}

TEST(PoolMetricsTest, EndpointsAndNodesPerTrackWithAnEmptyTrackAtZero) {
  const auto m = PoolMetrics({UpgradingPool()});
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_endpoints", Seed({{"library_version", "1.2.0.68"}})), 2)
      << "an endpoint without its own version counts for the pool's library";
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_endpoints", Seed({{"library_version", "2.0.0.109"}})),
            0);
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_track_nodes", Seed({{"library_version", "1.2.0.68"}})),
            3);
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_track_active_nodes",
                  Seed({{"library_version", "2.0.0.109"}})),
            0);
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_library_info",
                  Seed({{"library_version", "2.0.0.109"},
                        {"gateway_version", "1.8.0-cuobj2"},
                        {"s3_port", "7072"}})),
            1);
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_node_library_info",
                  Seed({{"node", "stg-node-1"}, {"library_version", "1.2.0.68"}})),
            1);
}

TEST(PoolMetricsTest, UpgradePhasesWhileAnUpgradeRunsAndNoneAfter) {
  crd::GatewayPool pool = UpgradingPool();
  auto m = PoolMetrics({pool});
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_upgrade_in_progress", kSeed), 1);
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_upgrade_nodes", Seed({{"phase", "Pending"}})), 2);
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_upgrade_nodes", Seed({{"phase", "Failed"}})), 1);
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_upgrade_nodes", Seed({{"phase", "StartNew"}})), 0);
  EXPECT_EQ(Count(m, "rdmastack_gatewaypool_upgrade_nodes"), 9u);

  pool.status->current_upgrade.reset();
  m = PoolMetrics({pool});
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_upgrade_in_progress", kSeed), 0);
  EXPECT_EQ(Count(m, "rdmastack_gatewaypool_upgrade_nodes"), 0u);
}

TEST(PoolMetricsTest, FailingNodesCountedByReason) {
  const auto m = PoolMetrics({UpgradingPool()});
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_failing_nodes", Seed({{"reason", "ValidationFailed"}})),
            2);
  EXPECT_EQ(Count(m, "rdmastack_gatewaypool_failing_nodes"), 1u);
}

TEST(PoolMetricsTest, APoolWithoutStatusSaysOnlyThatNoUpgradeRuns) {
  crd::GatewayPool fresh;
  fresh.metadata.name = "new";
  fresh.metadata.namespace_ = "storage";
  const auto m = PoolMetrics({fresh, UpgradingPool()});
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_upgrade_in_progress",
                  {{"namespace", "storage"}, {"gatewaypool", "new"}}),
            0);
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_nodes", {{"gatewaypool", "new"}, {"state", "ready"}}),
            std::nullopt);
  EXPECT_EQ(Count(m, "rdmastack_gatewaypool_upgrade_in_progress"), 2u);
}

// A two-rail pool with a rail down on one node: status.degradedNodes by reason. The family as
// the operator's registry renders it is tests/monitoring/fixtures/rendered-degraded-nodes.txt,
// which the alert rule tests check their names against (no scrape of the demo has a rail down).
TEST(PoolMetricsTest, DegradedNodesByReason) {
  crd::GatewayPool pool;
  pool.metadata.name = "twin";
  pool.metadata.namespace_ = "storage";
  crd::GatewayPoolStatus& s = pool.status.emplace();
  s.degraded_nodes = {
      {"stg-node-10", "RailDown", "rail rail-b (10.11.0.11): mlx5_1/1 is DOWN", std::nullopt}};
  const auto m = PoolMetrics({pool});
  EXPECT_EQ(Value(m, "rdmastack_gatewaypool_degraded_nodes",
                  {{"namespace", "storage"}, {"gatewaypool", "twin"}, {"reason", "RailDown"}}),
            1);
  EXPECT_EQ(Count(m, "rdmastack_gatewaypool_degraded_nodes"), 1u);
  EXPECT_EQ(Count(m, "rdmastack_gatewaypool_failing_nodes"), 0u);
  runtime::MetricsRegistry registry;
  registry.AddSampler([&] {
    std::vector<runtime::SampledFamily> out;
    for (runtime::SampledFamily& f : PoolMetrics({pool})) {
      if (f.name == "rdmastack_gatewaypool_degraded_nodes") out.push_back(std::move(f));
    }
    return out;
  });
  ::rdmastack::testing::ExpectMatchesGolden("tests/monitoring/fixtures/rendered-degraded-nodes.txt",
                                            registry.Render());
}

}  // namespace
}  // namespace rdmastack::statusmetrics
