#include "controllers/rdmanode/node_labels.h"

#include <gtest/gtest.h>

#include "base/rfc3339.h"
#include "controllers/rdmanode/rdmanode_status.h"

namespace rdmastack::rdmanode {
namespace {

using std::chrono::seconds;
using Labels = std::map<std::string, std::string>;

const Clock::WallTime kLabelsT0{seconds(1'764'576'000)};
constexpr Clock::Duration kGrace = seconds(300);

crd::Condition Cond(const char* type, crd::ConditionStatus status, Clock::WallTime at = kLabelsT0) {
  crd::Condition c;
  c.type = type;
  c.status = status;
  c.reason = "R";
  c.last_transition_time = FormatRfc3339(at);
  return c;
}

crd::RdmaNodeStatus NodeStatus(crd::ConditionStatus reporting, crd::ConditionStatus gw,
                               crd::ConditionStatus gd, crd::ConditionStatus hm) {
  crd::RdmaNodeStatus s;
  s.conditions = {Cond(kReporting, reporting), Cond(kGatewayCapable, gw),
                  Cond(kGPUDirectCapable, gd), Cond(kHostMemoryCapable, hm)};
  s.link_layer = crd::LinkLayer::kInfiniBand;
  return s;
}

constexpr auto T = crd::ConditionStatus::kTrue;
constexpr auto F = crd::ConditionStatus::kFalse;
constexpr auto U = crd::ConditionStatus::kUnknown;

TEST(NodeLabelsTest, OneLabelPerDecidedVerdictAndTheLinkLayer) {
  const auto d = DesiredNodeLabels(NodeStatus(T, T, F, U), kLabelsT0, kGrace);
  EXPECT_EQ(d.labels, (Labels{{kGatewayCapableLabel, "true"},
                              {kGPUDirectLabel, "false"},
                              {kLinkLayerLabel, "InfiniBand"}}));
  EXPECT_FALSE(d.recheck_at);
}

TEST(NodeLabelsTest, StaleNodeKeepsLabelsForTheGracePeriodThenLosesThem) {
  const auto stale = NodeStatus(F, T, T, T);
  const auto within = DesiredNodeLabels(stale, kLabelsT0 + kGrace - seconds(1), kGrace);
  EXPECT_EQ(within.labels.size(), 4u);
  ASSERT_TRUE(within.recheck_at);
  EXPECT_EQ(*within.recheck_at, kLabelsT0 + kGrace);
  const auto after = DesiredNodeLabels(stale, kLabelsT0 + kGrace, kGrace);
  EXPECT_TRUE(after.labels.empty());
  EXPECT_FALSE(after.recheck_at);
}

TEST(NodeLabelsTest, UnreadableTransitionTimeRemovesAtOnce) {
  auto s = NodeStatus(F, T, T, T);
  s.conditions[0].last_transition_time = "yesterday";
  EXPECT_TRUE(DesiredNodeLabels(s, kLabelsT0, kGrace).labels.empty());
}

TEST(NodeLabelsTest, PatchTouchesOnlyOwnedLabelsThatDiffer) {
  const Labels current = {
      {"kubernetes.io/hostname", "n"}, {kGatewayCapableLabel, "true"}, {kHostMemLabel, "true"}};
  EXPECT_EQ(NodeLabelPatch(current, {{kGatewayCapableLabel, "true"}, {kHostMemLabel, "true"}}), "");
  EXPECT_EQ(NodeLabelPatch(current, {{kGatewayCapableLabel, "false"}, {kHostMemLabel, "true"}}),
            R"({"metadata":{"labels":{"rdmastack.io/gateway-capable":"false"}}})");
  EXPECT_EQ(
      NodeLabelPatch(current, {}),
      R"({"metadata":{"labels":{"rdmastack.io/gateway-capable":null,"rdmastack.io/hostmem":null}}})");
  EXPECT_EQ(NodeLabelPatch({}, {{kLinkLayerLabel, "Ethernet"}}),
            R"({"metadata":{"labels":{"rdmastack.io/link-layer":"Ethernet"}}})");
  // A label we do not own is never removed, even when "desired" does not mention it.
  EXPECT_EQ(NodeLabelPatch({{"team", "a"}}, {}), "");
}

}  // namespace
}  // namespace rdmastack::rdmanode
