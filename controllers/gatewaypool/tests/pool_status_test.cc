#include "controllers/gatewaypool/pool_status.h"

#include <gtest/gtest.h>

#include "controllers/common/conditions.h"
#include "controllers/gatewaypool/tests/test_pools.h"
#include "crds/schema/testing/status_expectations.h"
#include "operator/k8s/json_builder.h"

namespace rdmastack::gatewaypool {
namespace {

using testing::SamplePool;
using testing::ShippedMatrix;

const Clock::WallTime kStatusNow = Clock::WallTime(std::chrono::seconds(1'800'000'000));

SelectedNode Verified(const std::string& name) {
  NodeVerdict v;
  v.verified = true;
  return {name, v};
}

SelectedNode Unverified(const std::string& name, const std::string& reason) {
  NodeVerdict v;
  v.reason = reason;
  v.message = "because";
  return {name, v};
}

controllers::OwnedPod StatusPod(const std::string& node, bool ready) {
  controllers::OwnedPod p;
  p.name = "kvcache-gateway-v1-" + node;
  p.node = node;
  p.track = "v1";
  p.library_version = "1.2.0.68";
  p.ip = "198.18.1.10";
  p.ready = ready;
  return p;
}

struct Fixture {
  crd::GatewayPool pool = SamplePool();
  PoolStatusInputs in;
  Fixture() {
    in.pool = &pool;
    in.decision = DecideTrack(pool.spec, ShippedMatrix());
    in.now = kStatusNow;
  }
  // Every status a case computes must be one the API server accepts as it is.
  crd::GatewayPoolStatus Compute() {
    crd::GatewayPoolStatus s = ComputePoolStatus(in);
    crd::testing::ExpectValidStatus(s);
    return s;
  }
};

std::string Cond(const crd::GatewayPoolStatus& s, const char* type) {
  const crd::Condition* c = controllers::FindCondition(s.conditions, type);
  return c == nullptr ? "<none>" : std::string(crd::ToString(c->status)) + "/" + c->reason;
}

TEST(PoolStatusTest, AllServingIsReady) {
  Fixture f;
  f.in.selected = {Verified("a"), Verified("b")};
  f.in.pods = {StatusPod("a", true), StatusPod("b", true)};
  const auto s = f.Compute();
  EXPECT_EQ(Cond(s, kReady), "True/GatewaysReady");
  EXPECT_EQ(Cond(s, kProgressing), "False/RolloutComplete");
  EXPECT_EQ(Cond(s, kDegraded), "False/AsExpected");
  EXPECT_EQ(Cond(s, kLibraryCompatible), "True/Compatible");
  EXPECT_EQ(Cond(s, kNodesVerified), "True/AllNodesVerified");
  EXPECT_EQ(s.node_counts->ready_of_selected, "2/2");
  EXPECT_EQ(s.library, "1.2.0.68");
  ASSERT_EQ(s.versions.size(), 1u);
  EXPECT_EQ(s.versions[0].nodes, 2);
  EXPECT_EQ(s.versions[0].active_nodes, 2);
  EXPECT_EQ(s.versions[0].s3_port, 7071);
  EXPECT_TRUE(s.failing_nodes.empty());
  EXPECT_EQ(s.observed_generation, 1);
  ASSERT_EQ(s.endpoints.size(), 2u);
  EXPECT_EQ(s.endpoints[0].node, "a");
  EXPECT_EQ(s.endpoints[0].s3_port, 7071);
  EXPECT_EQ(s.endpoints[0].library_version, "1.2.0.68");
}

TEST(PoolStatusTest, StartingGatewaysAreProgressingNotDegraded) {
  Fixture f;
  f.in.selected = {Verified("a"), Verified("b")};
  f.in.pods = {StatusPod("a", true), StatusPod("b", false)};
  const auto s = f.Compute();
  EXPECT_EQ(Cond(s, kReady), "False/GatewaysStarting");
  EXPECT_EQ(Cond(s, kProgressing), "True/RollingOut");
  EXPECT_EQ(Cond(s, kDegraded), "False/AsExpected");
  ASSERT_EQ(s.failing_nodes.size(), 1u);
  EXPECT_EQ(s.failing_nodes[0].reason, "GatewayNotReady");
}

TEST(PoolStatusTest, UnverifiedNodeIsListedAndTheRestIsReady) {
  Fixture f;
  f.in.selected = {Verified("a"), Unverified("b", "PortDown")};
  f.in.pods = {StatusPod("a", true)};
  const auto s = f.Compute();
  EXPECT_EQ(Cond(s, kReady), "True/GatewaysReady");
  EXPECT_EQ(Cond(s, kNodesVerified), "False/NodesNotVerified");
  EXPECT_EQ(Cond(s, kDegraded), "True/NodesNotVerified");
  ASSERT_EQ(s.failing_nodes.size(), 1u);
  EXPECT_EQ(s.failing_nodes[0].node, "b");
  EXPECT_EQ(s.failing_nodes[0].reason, "PortDown");
  EXPECT_EQ(s.node_counts->verified, 1);
  EXPECT_EQ(s.node_counts->ready_of_selected, "1/2");
}

TEST(PoolStatusTest, CrashLoopIsDegraded) {
  Fixture f;
  f.in.selected = {Verified("a")};
  controllers::OwnedPod p = StatusPod("a", false);
  p.waiting_reason = "CrashLoopBackOff";
  p.message = "rdmastack-gateway: refused (library-pin): ...";
  f.in.pods = {p};
  const auto s = f.Compute();
  EXPECT_EQ(Cond(s, kReady), "False/GatewaysFailing");
  EXPECT_EQ(Cond(s, kDegraded), "True/GatewaysFailing");
  EXPECT_EQ(Cond(s, kProgressing), "False/RolloutComplete");
  ASSERT_EQ(s.failing_nodes.size(), 1u);
  EXPECT_EQ(s.failing_nodes[0].reason, "GatewayCrashLooping");
  EXPECT_NE(s.failing_nodes[0].message->find("refused (library-pin)"), std::string::npos);
}

// The launcher's library-digest refusal is named by its own reason, on the node and on Degraded
// (whose change the reconciler turns into a Warning event).
TEST(PoolStatusTest, ALibraryDigestRefusalIsLibraryDigestMismatch) {
  Fixture f;
  f.in.selected = {Verified("a"), Verified("b")};
  controllers::OwnedPod p = StatusPod("a", false);
  p.waiting_reason = "CrashLoopBackOff";
  p.message =
      "rdmastack-gateway: refused (library-digest): libcuobjserver.so.1.2.0.68: sha256 is 11, "
      "the compatibility data expects 22; ...";
  f.in.pods = {p, StatusPod("b", true)};
  const auto s = f.Compute();
  ASSERT_EQ(s.failing_nodes.size(), 1u);
  EXPECT_EQ(s.failing_nodes[0].reason, "LibraryDigestMismatch");
  EXPECT_EQ(Cond(s, kDegraded), "True/LibraryDigestMismatch");
  const crd::Condition* degraded = controllers::FindCondition(s.conditions, kDegraded);
  ASSERT_NE(degraded, nullptr);
  EXPECT_EQ(degraded->message.rfind("a: CrashLoopBackOff: rdmastack-gateway: refused "
                                    "(library-digest): libcuobjserver.so.1.2.0.68",
                                    0),
            0u)
      << degraded->message;
}

TEST(PoolStatusTest, RefusedSpecKeepsReportingWhatServes) {
  Fixture f;
  f.pool.spec.server_library.version = "2.0.0.109";
  f.in.decision = DecideTrack(f.pool.spec, ShippedMatrix());
  f.in.selected = {Verified("a")};
  f.in.pods = {StatusPod("a", true)};  // the 1.x gateway from the accepted spec
  const auto s = f.Compute();
  EXPECT_EQ(Cond(s, kLibraryCompatible), "False/IncompatiblePair");
  EXPECT_EQ(Cond(s, kReady), "False/IncompatiblePair");
  EXPECT_EQ(Cond(s, kDegraded), "True/SpecRefused");
  EXPECT_EQ(s.library, "1.2.0.68");
  EXPECT_EQ(s.node_counts->ready, 1);
  const crd::Condition* ready = controllers::FindCondition(s.conditions, kReady);
  EXPECT_NE(ready->message.find("1 node serve libcuobjserver 1.2.0.68"), std::string::npos)
      << ready->message;
}

// A newer pool that collides with an older one (pool_conflict.h): refused with the other pool's
// name, its library still compatible, and nothing it serves counted away.
TEST(PoolStatusTest, ConflictWithAnOlderPoolIsRefusedByName) {
  Fixture f;
  f.in.selected = {Verified("a")};
  f.in.conflict = PoolConflict{"other/kvcache",
                               "pool other/kvcache, created before this one, "
                               "holds port 7071 on a"};
  const auto s = f.Compute();
  EXPECT_EQ(Cond(s, kLibraryCompatible), "True/Compatible");
  EXPECT_EQ(Cond(s, kNodesVerified), "False/PoolConflict");
  EXPECT_EQ(Cond(s, kReady), "False/PoolConflict");
  EXPECT_EQ(Cond(s, kProgressing), "False/PoolConflict");
  EXPECT_EQ(Cond(s, kDegraded), "True/PoolConflict");
  const crd::Condition* verified = controllers::FindCondition(s.conditions, kNodesVerified);
  EXPECT_EQ(verified->message, "pool other/kvcache, created before this one, holds port 7071 on a");
  const crd::Condition* ready = controllers::FindCondition(s.conditions, kReady);
  EXPECT_NE(ready->message.find("collides with pool other/kvcache"), std::string::npos)
      << ready->message;
}

TEST(PoolStatusTest, MissingSecretWhileServingIsDegradedOnly) {
  Fixture f;
  f.in.selected = {Verified("a")};
  f.in.pods = {StatusPod("a", true)};
  f.in.secret = SecretState::kMissing;
  f.in.secret_message = "Secret storage/kvcache-s3-root does not exist";
  const auto s = f.Compute();
  EXPECT_EQ(Cond(s, kReady), "True/GatewaysReady");
  EXPECT_EQ(Cond(s, kDegraded), "True/CredentialsSecretMissing");
  f.in.pods.clear();
  EXPECT_EQ(Cond(f.Compute(), kReady), "False/CredentialsSecretMissing");
}

TEST(PoolStatusTest, NoNodesSelected) {
  Fixture f;
  const auto s = f.Compute();
  EXPECT_EQ(Cond(s, kNodesVerified), "False/NoNodesSelected");
  EXPECT_EQ(Cond(s, kReady), "False/NoNodesSelected");
  EXPECT_EQ(s.node_counts->ready_of_selected, "0/0");
}

TEST(PoolStatusTest, RecomputingIsStableAndTransitionTimesMoveOnlyOnChange) {
  Fixture f;
  f.in.selected = {Verified("a")};
  f.in.pods = {StatusPod("a", true)};
  const auto first = f.Compute();
  f.pool.status = first;
  f.in.now = kStatusNow + std::chrono::minutes(5);
  EXPECT_EQ(f.Compute(), first);
  f.in.pods = {StatusPod("a", false)};
  const auto second = f.Compute();
  const auto* ready = controllers::FindCondition(second.conditions, kReady);
  const auto* compatible = controllers::FindCondition(second.conditions, kLibraryCompatible);
  EXPECT_NE(ready->last_transition_time,
            controllers::FindCondition(first.conditions, kReady)->last_transition_time);
  EXPECT_EQ(compatible->last_transition_time,
            controllers::FindCondition(first.conditions, kLibraryCompatible)->last_transition_time);
}

TEST(PoolStatusTest, FailingNodesAreBounded) {
  Fixture f;
  for (int i = 0; i < 100; ++i) f.in.selected.push_back(Unverified("n" + std::to_string(i), "X"));
  EXPECT_EQ(f.Compute().failing_nodes.size(), kMaxFailingNodes);
}

TEST(PoolStatusTest, PendingNodesHeldByFailuresSaySo) {
  Fixture f;
  f.in.selected = {Verified("a"), Verified("b")};
  UpgradePlan plan;
  plan.active = true;
  plan.phases.failed = 1;
  plan.phases.pending = 1;
  plan.moving_total = 2;
  plan.held_by_failed = 1;
  plan.failed.push_back({"a", "NewGatewayNotReady", "pod is not Ready", std::nullopt});
  f.in.upgrade = &plan;
  const crd::GatewayPoolStatus s = f.Compute();
  EXPECT_EQ(Cond(s, "Upgrading"), "True/NodesFailed");
  const crd::Condition* c = controllers::FindCondition(s.conditions, "Upgrading");
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c->message.find("1 pending node wait"), std::string::npos) << c->message;
  // Without the hold, a pending node means the rollout is still going.
  plan.held_by_failed = 0;
  EXPECT_EQ(Cond(f.Compute(), "Upgrading"), "True/RollingOut");
}

// The pod as ReadOwnedPod reads it from the API: a gateway that crash-loops after writing a long
// log, whose last 2 KiB (FallbackToLogsOnError) are its termination message.
controllers::OwnedPod CrashLoopingAfterALongLog(const std::string& node) {
  std::string log;
  for (int i = 0; i < 60; ++i)
    log += "line " + std::to_string(i) + " of a long gateway log, with words enough to fill it\n";
  log += "the last line says why\n";
  k8s::JsonBuilder container;
  container.SetString({"name"}, "gateway");
  container.SetString({"state", "waiting", "reason"}, "CrashLoopBackOff");
  container.SetString({"lastState", "terminated", "message"}, log.substr(log.size() - 2048));
  k8s::JsonBuilder pod;
  pod.Append({"status", "containerStatuses"}, container);
  controllers::OwnedPod p = StatusPod(node, false);
  const controllers::OwnedPod read = controllers::ReadOwnedPod(std::move(pod).Build(), "gateway");
  p.waiting_reason = read.waiting_reason;
  p.message = read.message;
  return p;
}

// An InPlace node whose new gateway fails validation: its upgrade failed, and its gateway (the
// spec's track) crash-loops. It is listed once, for the upgrade, and the long log's end fits.
TEST(PoolStatusTest, AnInPlaceNodeThatFailedValidationIsListedOnce) {
  Fixture f;
  f.in.selected = {Verified("a"), Verified("b")};
  const controllers::OwnedPod failing = CrashLoopingAfterALongLog("a");
  f.in.pods = {failing, StatusPod("b", true)};
  UpgradePlan plan;
  plan.active = true;
  plan.in_place = true;
  plan.phases.failed = 1;
  plan.phases.pending = 1;
  plan.moving_total = 2;
  plan.held_by_failed = 1;
  plan.failed.push_back({"a", "NewGatewayNotReady",
                         "pod " + failing.name + " is not Ready (CrashLoopBackOff): " +
                             failing.message + "; 3 restarts within validationTimeout 40s",
                         std::nullopt});
  f.in.upgrade = &plan;
  const crd::GatewayPoolStatus s = f.Compute();
  ASSERT_EQ(s.failing_nodes.size(), 1u);
  EXPECT_EQ(s.failing_nodes[0].node, "a");
  EXPECT_EQ(s.failing_nodes[0].reason, "NewGatewayNotReady");
  EXPECT_NE(s.failing_nodes[0].message->find("the last line says why"), std::string::npos);
  EXPECT_EQ(s.node_counts->failed, 1);
}

// The plan's decision for a node under maintenance.
NodeDecision InMaintenance(const std::string& node, MaintenancePhase phase) {
  NodeDecision d;
  d.node = node;
  d.maintenance.applies = true;
  d.maintenance.phase = phase;
  d.maintenance.state = MaintenanceState{1'800'000'000 - 60, "cordoned", {"v1"}};
  return d;
}

TEST(PoolStatusTest, NodesUnderMaintenanceAreListedAndDoNotHoldReadyBack) {
  Fixture f;
  // b drains (its gateway still answers), c has stopped and its agent went quiet with it.
  f.in.selected = {Verified("a"), Verified("b"), Unverified("c", "AgentNotReporting")};
  f.in.pods = {StatusPod("a", true), StatusPod("b", true)};
  UpgradePlan plan;
  NodeDecision a;
  a.node = "a";
  a.tracks = {"v1"};
  plan.nodes = {a, InMaintenance("b", MaintenancePhase::kDraining),
                InMaintenance("c", MaintenancePhase::kStopped)};
  f.in.upgrade = &plan;
  const auto s = f.Compute();
  EXPECT_EQ(Cond(s, kReady), "True/GatewaysReady");
  EXPECT_NE(controllers::FindCondition(s.conditions, kReady)
                ->message.find("2 nodes under maintenance (status.maintenanceNodes)"),
            std::string::npos);
  EXPECT_EQ(Cond(s, kNodesVerified), "True/AllNodesVerified");
  EXPECT_EQ(Cond(s, kDegraded), "False/AsExpected");
  EXPECT_TRUE(s.failing_nodes.empty());
  EXPECT_EQ(s.node_counts->maintenance, 2);
  EXPECT_EQ(s.node_counts->ready_of_selected, "1/3");
  ASSERT_EQ(s.maintenance_nodes.size(), 2u);
  EXPECT_EQ(s.maintenance_nodes[0],
            (crd::MaintenanceNode{"b", "Draining", "cordoned", "2027-01-15T07:59:00Z"}));
  EXPECT_EQ(s.maintenance_nodes[1].phase, "Stopped");

  plan.nodes = {a};  // all back
  const auto back = f.Compute();
  EXPECT_FALSE(back.node_counts->maintenance);
  EXPECT_TRUE(back.maintenance_nodes.empty());
  EXPECT_EQ(Cond(back, kNodesVerified), "False/NodesNotVerified");
}

TEST(PoolStatusTest, EveryNodeUnderMaintenanceSaysSo) {
  Fixture f;
  f.in.selected = {Verified("a")};
  UpgradePlan plan;
  plan.nodes = {InMaintenance("a", MaintenancePhase::kStopped)};
  f.in.upgrade = &plan;
  const auto s = f.Compute();
  EXPECT_EQ(Cond(s, kReady), "False/AllNodesInMaintenance");
  EXPECT_EQ(Cond(s, kDegraded), "False/AsExpected");
}

TEST(PoolStatusTest, ARolloutsStatusIsHeldBackOnlyWhileNothingAHumanActsOnChanged) {
  using std::chrono::milliseconds;
  crd::GatewayPoolStatus written;
  crd::Condition ready;
  ready.type = kReady;
  ready.status = crd::ConditionStatus::kTrue;
  ready.reason = "GatewaysReady";
  ready.message = "3 nodes serve";
  written.conditions = {ready};
  written.current_upgrade = crd::CurrentUpgrade{};
  written.current_upgrade->phases.start_new = 2;
  crd::GatewayPoolStatus now = written;
  now.current_upgrade->phases.start_new = 1;
  now.current_upgrade->phases.switch_ = 1;
  now.conditions[0].message = "3 nodes serve, 1 on 2.0.0.109";
  const auto interval = milliseconds(2000);
  // Only counts and messages moved: held back until the interval is over.
  EXPECT_EQ(StatusHoldBack(written, now, milliseconds(500), interval), milliseconds(1500));
  EXPECT_EQ(StatusHoldBack(written, now, milliseconds(2000), interval), milliseconds(0));
  EXPECT_EQ(StatusHoldBack(written, now, Clock::Duration::max(), interval), milliseconds(0));
  // A condition's status or reason: at once.
  crd::GatewayPoolStatus degraded = now;
  degraded.conditions[0].reason = "GatewaysNotReady";
  EXPECT_EQ(StatusHoldBack(written, degraded, milliseconds(500), interval), milliseconds(0));
  // A failing node: at once.
  crd::GatewayPoolStatus failing = now;
  failing.failing_nodes.push_back({"stg-a", "NewGatewayNotReady", "pod not Ready", std::nullopt});
  EXPECT_EQ(StatusHoldBack(written, failing, milliseconds(500), interval), milliseconds(0));
  // The rollout starting or ending, and no rollout at all: at once.
  crd::GatewayPoolStatus over = now;
  over.current_upgrade.reset();
  EXPECT_EQ(StatusHoldBack(written, over, milliseconds(500), interval), milliseconds(0));
  crd::GatewayPoolStatus before = written;
  before.current_upgrade.reset();
  EXPECT_EQ(StatusHoldBack(before, now, milliseconds(500), interval), milliseconds(0));
  EXPECT_EQ(StatusHoldBack(std::nullopt, now, milliseconds(500), interval), milliseconds(0));
}

}  // namespace
}  // namespace rdmastack::gatewaypool
