#include "controllers/rdmanode/agent_metrics.h"

#include <gtest/gtest.h>

namespace rdmastack::rdmanode {
namespace {

using std::chrono::seconds;

agenthub::AgentIdentity Id(const std::string& node) {
  agenthub::AgentIdentity id;
  id.node_name = node;
  return id;
}

double AgeOf(const std::vector<runtime::SampledFamily>& families, const std::string& node) {
  for (const auto& s : families.at(0).series) {
    if (s.labels.at(0).second == node) return s.value;
  }
  return -1;
}

TEST(AgentMetricsTest, AgeGrowsWithSilenceAndAHeartbeatResetsIt) {
  FakeClock clock;
  AgentStateStore store(clock, seconds(60));
  const runtime::Sampler sample = AgentAgeSampler(store, clock);
  EXPECT_TRUE(sample().at(0).series.empty()) << "no agent heard yet";

  store.OnAgentConnected(Id("stg-node-0"));
  store.OnAgentConnected(Id("gpu-node-0"));
  clock.Advance(seconds(25));
  store.OnHeartbeat(Id("gpu-node-0"), clock.WallNow());
  clock.Advance(seconds(5));

  const auto families = sample();
  ASSERT_EQ(families.size(), 1u);
  EXPECT_EQ(families[0].name, "rdmastack_node_agent_report_age_seconds");
  EXPECT_EQ(families[0].series.size(), 2u);
  EXPECT_DOUBLE_EQ(AgeOf(families, "stg-node-0"), 30);
  EXPECT_DOUBLE_EQ(AgeOf(families, "gpu-node-0"), 5);

  store.Forget("stg-node-0");
  EXPECT_EQ(AgeOf(sample(), "stg-node-0"), -1) << "a deleted node's series goes with it";
}

}  // namespace
}  // namespace rdmastack::rdmanode
