#include "controllers/metrics/node_metrics.h"

#include <gtest/gtest.h>

#include "controllers/metrics/tests/series_lookup.h"

namespace rdmastack::statusmetrics {
namespace {

using testing::Count;
using testing::Value;

crd::RdmaNode Node(const std::string& name, crd::ConditionStatus reporting) {
  crd::RdmaNode n;
  n.metadata.name = name;
  n.spec.node_name = name;
  crd::RdmaNodeStatus& s = n.status.emplace();
  s.conditions = {{"Reporting", reporting, 1, "2026-12-05T10:00:00Z",
                   reporting == crd::ConditionStatus::kTrue ? "Reporting" : "Stale", ""}};
  crd::Verdicts& v = s.verdicts.emplace();
  v.gateway = crd::Verdict{crd::Capability::kYes, std::nullopt, std::nullopt};
  v.gpu_direct = crd::Verdict{crd::Capability::kNo, "NoPeerMem", std::nullopt};
  return n;
}

TEST(NodeMetricsTest, ReportingConditionAndVerdictPerRole) {
  const auto m = NodeMetrics({Node("stg-node-0", crd::ConditionStatus::kTrue),
                              Node("gpu-node-0", crd::ConditionStatus::kFalse)});
  EXPECT_EQ(Value(m, "rdmastack_node_condition",
                  {{"node", "gpu-node-0"}, {"type", "Reporting"}, {"status", "True"}}),
            0);
  EXPECT_EQ(Value(m, "rdmastack_node_condition",
                  {{"node", "gpu-node-0"}, {"type", "Reporting"}, {"status", "False"}}),
            1);
  EXPECT_EQ(Value(m, "rdmastack_node_condition_reason",
                  {{"node", "gpu-node-0"}, {"type", "Reporting"}, {"reason", "Stale"}}),
            1);
  EXPECT_EQ(
      Value(m, "rdmastack_node_verdict",
            {{"node", "stg-node-0"}, {"role", "gateway"}, {"capable", "Yes"}, {"reason", ""}}),
      1);
  EXPECT_EQ(Value(m, "rdmastack_node_verdict",
                  {{"node", "stg-node-0"},
                   {"role", "gpuDirect"},
                   {"capable", "No"},
                   {"reason", "NoPeerMem"}}),
            1);
  // hostMemory has no verdict yet: no series rather than a guess.
  EXPECT_EQ(Value(m, "rdmastack_node_verdict", {{"node", "stg-node-0"}, {"role", "hostMemory"}}),
            std::nullopt);
  EXPECT_EQ(Count(m, "rdmastack_node_verdict"), 4u);
}

TEST(NodeMetricsTest, ANodeNotYetReportedHasNoSeries) {
  crd::RdmaNode n;
  n.metadata.name = "gpu-node-9";
  const auto m = NodeMetrics({n});
  for (const auto& f : m) EXPECT_TRUE(f.series.empty()) << f.name;
}

}  // namespace
}  // namespace rdmastack::statusmetrics
