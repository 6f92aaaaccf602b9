#include "controllers/gatewaypool/node_maintenance.h"

#include <gtest/gtest.h>

#include "crds/types/node_upgrade.h"

namespace rdmastack::gatewaypool {
namespace {

constexpr int64_t kNow = 1'800'000'000;

TEST(NodeMaintenanceTest, CordonAndTheNvidiaDriverUpgradeStatesAreMaintenance) {
  EXPECT_EQ(MaintenanceCause(false, {}), "");
  EXPECT_EQ(MaintenanceCause(true, {}), "cordoned");
  EXPECT_EQ(MaintenanceCause(false, {{kNetworkOperatorUpgradeLabel, "drain-required"}}),
            "nvidia.com/ofed-driver-upgrade-state=drain-required");
  EXPECT_EQ(MaintenanceCause(false, {{kGpuOperatorUpgradeLabel, "pod-restart-required"}}),
            "nvidia.com/gpu-driver-upgrade-state=pod-restart-required");
  // Waiting for a slot, done, failed, or back and about to be uncordoned: the driver serves.
  for (const char* state :
       {"upgrade-required", "uncordon-required", "upgrade-done", "upgrade-failed", ""}) {
    EXPECT_EQ(MaintenanceCause(false, {{kNetworkOperatorUpgradeLabel, state}}), "") << state;
  }
  // The cordon is named first: it is what `kubectl get nodes` shows.
  EXPECT_EQ(MaintenanceCause(true, {{kNetworkOperatorUpgradeLabel, "drain-required"}}), "cordoned");
}

TEST(NodeMaintenanceTest, StateRoundTripsAndRefusesGarbage) {
  MaintenanceState s{kNow, "cordoned", {"v1", "v2"}};
  auto parsed = ParseMaintenanceState(SerializeMaintenanceState(s));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(*parsed, s);
  s.draining.clear();
  parsed = ParseMaintenanceState(SerializeMaintenanceState(s));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(*parsed, s);
  EXPECT_FALSE(ParseMaintenanceState("not json").ok());
  EXPECT_FALSE(ParseMaintenanceState("{\"cause\":\"cordoned\"}").ok());
}

TEST(NodeMaintenanceTest, AnnotationIsPerPoolAndBesideTheUpgradeState) {
  EXPECT_EQ(NodeMaintenanceAnnotation("ml", "kvcache"), "maintenance.gwp.rdmastack.io/ml.kvcache");
  EXPECT_NE(NodeMaintenanceAnnotation("ml", "kvcache"), NodeMaintenanceAnnotation("ml", "other"));
  const std::string long_ns(60, 'n');
  const std::string a = NodeMaintenanceAnnotation(long_ns, "kvcache");
  const std::string b = NodeMaintenanceAnnotation(long_ns, "kvcache2");
  EXPECT_NE(a, b);
  // The name part of an annotation key is at most 63 characters.
  EXPECT_LE(a.size() - a.find('/') - 1, 63u) << a;
  EXPECT_EQ(a.substr(sizeof("maintenance.") - 1),
            NodeUpgradeAnnotation(long_ns, "kvcache").substr(sizeof("upgrade.") - 1));
}

MaintenanceInput Cordoned(std::set<std::string> published = {"v1"}) {
  MaintenanceInput in;
  in.cause = "cordoned";
  in.tracks = {"v1"};
  in.published = std::move(published);
  return in;
}

TEST(NodeMaintenanceTest, EnteringDrainsThePublishedTracksAndKeepsTheGateway) {
  const MaintenanceStep step = StepMaintenance(Cordoned(), {kNow, 30});
  EXPECT_TRUE(step.applies);
  EXPECT_EQ(step.phase, MaintenancePhase::kDraining);
  ASSERT_TRUE(step.state);
  EXPECT_EQ(*step.state, (MaintenanceState{kNow, "cordoned", {"v1"}}));
  EXPECT_EQ(step.tracks, (std::set<std::string>{"v1"}));
  EXPECT_EQ(step.wake_at, kNow + 30);
  EXPECT_EQ(step.event_reason, "MaintenanceDrain");
  EXPECT_EQ(step.transition,
            "under maintenance (cordoned): its endpoint drains for 30s, then its gateway stops");
}

TEST(NodeMaintenanceTest, AfterDrainSecondsTheGatewayStops) {
  MaintenanceInput in = Cordoned({});  // the slice lists it as terminating now, not ready
  in.state = MaintenanceState{kNow - 29, "cordoned", {"v1"}};
  MaintenanceStep step = StepMaintenance(in, {kNow, 30});
  EXPECT_EQ(step.phase, MaintenancePhase::kDraining);
  EXPECT_EQ(step.tracks, (std::set<std::string>{"v1"}));
  EXPECT_EQ(step.transition, "");
  EXPECT_EQ(step.state->since, kNow - 29) << "the drain's clock is the annotation's";

  in.state->since = kNow - 30;
  step = StepMaintenance(in, {kNow, 30});
  EXPECT_EQ(step.phase, MaintenancePhase::kStopped);
  EXPECT_TRUE(step.tracks.empty());
  EXPECT_EQ(step.wake_at, 0);
  EXPECT_EQ(step.event_reason, "MaintenanceStop");
  EXPECT_EQ(step.transition, "drained (cordoned): its gateway stops");

  in.tracks.clear();  // the labels are gone: nothing more to say
  EXPECT_EQ(StepMaintenance(in, {kNow, 30}).transition, "");
}

// Clients learn of the drain through the API server: an outage during it restarts its count.
TEST(NodeMaintenanceTest, ADrainLastsDrainSecondsFromTheApiServersFirstAnswerAfterAnOutage) {
  MaintenanceInput in = Cordoned({});
  in.state = MaintenanceState{kNow - 40, "cordoned", {"v1"}};
  MaintenanceStep step = StepMaintenance(in, {kNow, 30, /*answering_since=*/kNow - 10});
  EXPECT_EQ(step.phase, MaintenancePhase::kDraining);
  EXPECT_EQ(step.tracks, (std::set<std::string>{"v1"}));
  EXPECT_EQ(step.wake_at, kNow + 20);
  EXPECT_EQ(step.state->since, kNow - 40) << "the annotation keeps when the drain began";

  step = StepMaintenance(in, {kNow + 20, 30, kNow - 10});
  EXPECT_EQ(step.phase, MaintenancePhase::kStopped);
  // An outage that ended before the drain began changes nothing.
  EXPECT_EQ(StepMaintenance(in, {kNow - 10, 30, kNow - 50}).phase, MaintenancePhase::kStopped);
}

TEST(NodeMaintenanceTest, NothingToDrainStopsAtOnce) {
  for (auto [published, drain] :
       {std::pair{std::set<std::string>{}, 30}, std::pair{std::set<std::string>{"v1"}, 0}}) {
    const MaintenanceStep step = StepMaintenance(Cordoned(published), {kNow, drain});
    EXPECT_EQ(step.phase, MaintenancePhase::kStopped);
    EXPECT_TRUE(step.tracks.empty());
    EXPECT_EQ(step.event_reason, "MaintenanceStop");
    EXPECT_EQ(step.transition, "under maintenance (cordoned): its gateway stops");
  }
}

TEST(NodeMaintenanceTest, TheCauseFollowsTheNodeAndTheEndHandsItBack) {
  MaintenanceInput in = Cordoned();
  in.state =
      MaintenanceState{kNow - 5, "nvidia.com/ofed-driver-upgrade-state=drain-required", {"v1"}};
  MaintenanceStep step = StepMaintenance(in, {kNow, 30});
  EXPECT_EQ(step.state->cause, "cordoned");
  EXPECT_EQ(step.state->since, kNow - 5);

  in.cause.clear();  // uncordoned
  step = StepMaintenance(in, {kNow, 30});
  EXPECT_FALSE(step.applies);
  EXPECT_FALSE(step.state);
  EXPECT_EQ(step.tracks, (std::set<std::string>{"v1"}));
  EXPECT_EQ(step.event_reason, "MaintenanceOver");
  EXPECT_EQ(step.transition,
            "maintenance over (was nvidia.com/ofed-driver-upgrade-state=drain-required)");

  in.state.reset();
  step = StepMaintenance(in, {kNow, 30});
  EXPECT_FALSE(step.applies);
  EXPECT_EQ(step.transition, "");
}

}  // namespace
}  // namespace rdmastack::gatewaypool
