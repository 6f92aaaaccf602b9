#include "controllers/metrics/profile_metrics.h"

#include <gtest/gtest.h>

#include "controllers/metrics/tests/series_lookup.h"

namespace rdmastack::statusmetrics {
namespace {

using testing::Count;
using testing::Value;

crd::ClientProfile Profile() {
  crd::ClientProfile p;
  p.metadata.name = "train";
  p.metadata.namespace_ = "ml";
  crd::ClientProfileStatus& s = p.status.emplace();
  s.node_counts = crd::ClientProfileNodeCounts{5, 3, 1, "3/5", "1/3"};
  s.eligible_nodes = {
      {"gpu-node-0", "GPUDirect", "PeerMem", 3, true, std::nullopt},
      {"gpu-node-1", "GPUDirect", "DMABuf", 3, false, "client pod not ready"},
      {"gpu-node-2", "HostMemory", std::nullopt, 3, false, std::nullopt},
  };
  s.ineligible_nodes = {{"gpu-node-3", "NoRdmaDevice", std::nullopt},
                        {"gpu-node-4", "NoRdmaDevice", std::nullopt}};
  s.conditions = {
      {"Ready", crd::ConditionStatus::kFalse, 2, "2026-12-05T10:00:00Z", "ClientsNotReady", ""}};
  return p;
}

const Labels kTrain = {{"namespace", "ml"}, {"clientprofile", "train"}};

Labels Train(std::initializer_list<std::pair<std::string, std::string>> more) {
  return With(kTrain, more);
}

TEST(ProfileMetricsTest, NodeCountsByState) {
  const auto m = ProfileMetrics({Profile()});
  EXPECT_EQ(Value(m, "rdmastack_clientprofile_nodes", Train({{"state", "matched"}})), 5);
  EXPECT_EQ(Value(m, "rdmastack_clientprofile_nodes", Train({{"state", "eligible"}})), 3);
  EXPECT_EQ(Value(m, "rdmastack_clientprofile_nodes", Train({{"state", "ready"}})), 1);
}

TEST(ProfileMetricsTest, ClientsByTransportAndReadinessWithZerosForTransportsInUse) {
  const auto m = ProfileMetrics({Profile()});
  EXPECT_EQ(Value(m, "rdmastack_clientprofile_clients",
                  Train({{"transport", "GPUDirect"}, {"ready", "true"}})),
            1);
  EXPECT_EQ(Value(m, "rdmastack_clientprofile_clients",
                  Train({{"transport", "GPUDirect"}, {"ready", "false"}})),
            1);
  EXPECT_EQ(Value(m, "rdmastack_clientprofile_clients",
                  Train({{"transport", "HostMemory"}, {"ready", "true"}})),
            0);
  EXPECT_EQ(Count(m, "rdmastack_clientprofile_clients"), 4u);
}

TEST(ProfileMetricsTest, IneligibleNodesByReasonAndConditions) {
  const auto m = ProfileMetrics({Profile()});
  EXPECT_EQ(
      Value(m, "rdmastack_clientprofile_ineligible_nodes", Train({{"reason", "NoRdmaDevice"}})), 2);
  EXPECT_EQ(Value(m, "rdmastack_clientprofile_condition",
                  Train({{"type", "Ready"}, {"status", "False"}})),
            1);
  EXPECT_EQ(Value(m, "rdmastack_clientprofile_condition_reason",
                  Train({{"type", "Ready"}, {"reason", "ClientsNotReady"}})),
            1);
}

TEST(ProfileMetricsTest, AProfileWithoutStatusHasNoSeries) {
  crd::ClientProfile fresh;
  fresh.metadata.name = "new";
  const auto m = ProfileMetrics({fresh});
  for (const auto& f : m) EXPECT_TRUE(f.series.empty()) << f.name;
}

}  // namespace
}  // namespace rdmastack::statusmetrics
