#include "crds/types/node_upgrade.h"

#include <gtest/gtest.h>

#include "crds/types/gatewaypool_api.h"

namespace rdmastack::gatewaypool {
namespace {

TEST(NodeUpgradeTest, StateRoundTripsThroughTheAnnotation) {
  NodeUpgradeState s;
  s.from = "v1";
  s.to = "v2";
  s.phase = UpgradePhase::kRollBack;
  s.started = 1'800'000'000;
  s.since = 1'800'000'042;
  s.reason = "NewGatewayNotReady";
  s.message = "pod gw is not Ready (CrashLoopBackOff): \"bind\" failed";
  s.keep_failed = true;
  s.drain_new = true;
  auto back = ParseNodeUpgradeState(SerializeNodeUpgradeState(s));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, s);
  s.in_place = true;
  s.template_hash = "0123456789abcdef";
  s.phase = UpgradePhase::kStopOld;
  EXPECT_EQ(*ParseNodeUpgradeState(SerializeNodeUpgradeState(s)), s);
}

TEST(NodeUpgradeTest, ABrokenAnnotationIsAnErrorNotAPhase) {
  EXPECT_FALSE(ParseNodeUpgradeState("not json").ok());
  EXPECT_FALSE(ParseNodeUpgradeState(R"({"from":"v1","to":"v2","phase":"Sideways"})").ok());
  EXPECT_FALSE(ParseNodeUpgradeState(R"({"to":"v2","phase":"Done"})").ok());
  EXPECT_TRUE(ParseNodeUpgradeState(R"({"from":"v1","to":"v2","phase":"Done"})").ok());
}

TEST(NodeUpgradeTest, AnnotationNameSharesTheTrackLabelsCut) {
  EXPECT_EQ(NodeUpgradeAnnotation("storage", "kvcache"),
            "upgrade.gwp.rdmastack.io/storage.kvcache");
  const std::string long_pool(60, 'p');
  const std::string a = NodeUpgradeAnnotation("storage", long_pool);
  const std::string b = NodeUpgradeAnnotation("storage", long_pool + "x");
  EXPECT_NE(a, b);
  EXPECT_LE(a.size() - a.find('/') - 1, 63u);
}

TEST(NodeUpgradeTest, InPlaceRolesTakeTheNodeOutWhileItIsReplaced) {
  NodeUpgradeState s;
  s.from = s.to = "v2";
  s.in_place = true;
  s.phase = UpgradePhase::kDrain;
  EXPECT_EQ(RoleOf(s, "v2"), EndpointRole::kDraining);
  s.phase = UpgradePhase::kStopOld;
  EXPECT_EQ(RoleOf(s, "v2"), EndpointRole::kAbsent);
  s.phase = UpgradePhase::kValidate;
  EXPECT_EQ(RoleOf(s, "v2"), EndpointRole::kAbsent);
  s.phase = UpgradePhase::kDone;
  EXPECT_EQ(RoleOf(s, "v2"), EndpointRole::kActive);
  EXPECT_EQ(RoleOf(s, "v1"), EndpointRole::kAbsent);
}

}  // namespace
}  // namespace rdmastack::gatewaypool
