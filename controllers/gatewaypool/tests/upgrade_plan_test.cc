#include "controllers/gatewaypool/upgrade_plan.h"

#include <gtest/gtest.h>

namespace rdmastack::gatewaypool {
namespace {

constexpr int64_t kPlanNow = 1'800'000'000;

controllers::OwnedPod TrackPod(const std::string& node, const std::string& track, bool ready,
                               const std::string& hash = "h2") {
  controllers::OwnedPod p;
  p.name = "gw-" + track + "-" + node;
  p.node = node;
  p.track = track;
  p.ready = ready;
  p.ip = "198.18.0.1";
  p.template_hash = hash;
  return p;
}

// A node serving v1 (its gateway Ready), not yet touched by the upgrade.
UpgradeNode OnV1(const std::string& name) {
  UpgradeNode n;
  n.name = name;
  n.eligible = true;
  n.tracks = {"v1"};
  n.pods["v1"] = TrackPod(name, "v1", true, "h1");
  n.published = {"v1"};
  return n;
}

// A node serving v2 from a Ready gateway of template `hash`.
UpgradeNode OnV2(const std::string& name, const std::string& hash) {
  UpgradeNode n;
  n.name = name;
  n.eligible = true;
  n.tracks = {"v2"};
  n.pods["v2"] = TrackPod(name, "v2", true, hash);
  n.published = {"v2"};
  return n;
}

NodeUpgradeState State(UpgradePhase phase, int64_t started = kPlanNow - 10,
                       int64_t since = kPlanNow - 5) {
  NodeUpgradeState s;
  s.from = "v1";
  s.to = "v2";
  s.phase = phase;
  s.started = started;
  s.since = since;
  return s;
}

UpgradeInputs Inputs(std::vector<UpgradeNode> nodes, int32_t max_parallel = 2) {
  UpgradeInputs in;
  in.target = "v2";
  in.target_hash = "h2";
  in.spec.max_parallel = max_parallel;
  in.spec.drain_seconds = 30;
  in.spec.auto_rollback = false;
  in.validation_timeout_s = 600;
  in.now = kPlanNow;
  in.may_start = true;
  in.nodes = std::move(nodes);
  return in;
}

const NodeDecision& For(const UpgradePlan& plan, const std::string& node) {
  for (const auto& d : plan.nodes) {
    if (d.node == node) return d;
  }
  ADD_FAILURE() << "no decision for " << node;
  static NodeDecision none;
  return none;
}

std::string PhaseOf(const UpgradePlan& plan, const std::string& node) {
  const NodeDecision& d = For(plan, node);
  return d.state ? std::string(PhaseName(d.state->phase)) : "none";
}

TEST(UpgradePlanTest, StartsAtMostMaxParallelNodesInNameOrder) {
  const UpgradePlan plan = PlanUpgrade(Inputs({OnV1("a"), OnV1("b"), OnV1("c")}, 2));
  EXPECT_EQ(PhaseOf(plan, "c"), "none");
  int started = 0;
  for (const auto& d : plan.nodes) {
    if (d.state && d.state->phase == UpgradePhase::kStartNew) {
      ++started;
      EXPECT_EQ(d.tracks, (std::set<std::string>{"v1", "v2"}));
      EXPECT_EQ(d.state->started, kPlanNow);
      EXPECT_EQ(d.transition, "Pending -> StartNew");
    }
  }
  EXPECT_EQ(started, 2);
  EXPECT_TRUE(plan.active);
  EXPECT_EQ(plan.phases.pending, 1);
  EXPECT_EQ(plan.phases.start_new, 2);
  EXPECT_EQ(plan.moving_total, 3);
  EXPECT_EQ(plan.from, (std::set<std::string>{"v1"}));
}

TEST(UpgradePlanTest, NodesInFlightUseTheBudget) {
  UpgradeNode moving = OnV1("a");
  moving.tracks = {"v1", "v2"};
  moving.state = State(UpgradePhase::kDrain, kPlanNow - 60, kPlanNow);
  const UpgradePlan plan = PlanUpgrade(Inputs({moving, OnV1("b"), OnV1("c")}, 2));
  EXPECT_EQ(PhaseOf(plan, "a"), "Drain");
  EXPECT_EQ(PhaseOf(plan, "b"), "StartNew");
  EXPECT_EQ(PhaseOf(plan, "c"), "none");
}

TEST(UpgradePlanTest, PausedStartsNothingButFinishesMovesUnderWay) {
  UpgradeNode draining = OnV1("a");
  draining.tracks = {"v1", "v2"};
  draining.state = State(UpgradePhase::kDrain, kPlanNow - 100, kPlanNow - 31);
  UpgradeInputs in = Inputs({draining, OnV1("b")});
  in.spec.paused = true;
  const UpgradePlan plan = PlanUpgrade(in);
  EXPECT_EQ(PhaseOf(plan, "a"), "StopOld");
  EXPECT_EQ(For(plan, "a").tracks, std::set<std::string>{"v2"});
  EXPECT_EQ(PhaseOf(plan, "b"), "none");
  EXPECT_TRUE(plan.paused);
  EXPECT_EQ(plan.phases.pending, 1);
}

TEST(UpgradePlanTest, SideBySideWalksEveryPhase) {
  UpgradeNode n = OnV1("a");
  n.tracks = {"v1", "v2"};
  // StartNew -> Validate once the new pod is Ready.
  n.state = State(UpgradePhase::kStartNew);
  n.pods["v2"] = TrackPod("a", "v2", false);
  EXPECT_EQ(PhaseOf(PlanUpgrade(Inputs({n})), "a"), "StartNew");
  n.pods["v2"].ready = true;
  EXPECT_EQ(PhaseOf(PlanUpgrade(Inputs({n})), "a"), "Validate");
  // Found Ready and checked in the same pass: straight to Switch.
  {
    UpgradeInputs at_once = Inputs({n});
    ASSERT_TRUE(NeedsValidation(at_once.nodes[0], at_once));
    at_once.nodes[0].validation = Validation{true, "", ""};
    EXPECT_EQ(PhaseOf(PlanUpgrade(at_once), "a"), "Switch");
  }
  // Validate -> Switch only after the operator's check passed.
  n.state = State(UpgradePhase::kValidate);
  UpgradeInputs in = Inputs({n});
  EXPECT_TRUE(NeedsValidation(in.nodes[0], in));
  EXPECT_EQ(PhaseOf(PlanUpgrade(in), "a"), "Validate");
  EXPECT_EQ(PlanUpgrade(in).wake_after_s, 2);  // the check is retried
  in.nodes[0].validation = Validation{false, "ValidationCredentialsRejected", "403"};
  EXPECT_EQ(PhaseOf(PlanUpgrade(in), "a"), "Validate");
  in.nodes[0].validation = Validation{true, "", ""};
  EXPECT_EQ(PhaseOf(PlanUpgrade(in), "a"), "Switch");
  // Switch -> Drain once the new track's slice lists the node as ready.
  n.state = State(UpgradePhase::kSwitch);
  EXPECT_EQ(PhaseOf(PlanUpgrade(Inputs({n})), "a"), "Switch");
  n.published = {"v2"};
  const UpgradePlan drained = PlanUpgrade(Inputs({n}));
  EXPECT_EQ(PhaseOf(drained, "a"), "Drain");
  EXPECT_EQ(For(drained, "a").state->since, kPlanNow);
  EXPECT_EQ(drained.wake_after_s, 30);
  // drainSeconds 0: the old gateway stops as soon as clients see the move.
  {
    UpgradeInputs no_drain = Inputs({n});
    no_drain.spec.drain_seconds = 0;
    const UpgradePlan stopped = PlanUpgrade(no_drain);
    EXPECT_EQ(PhaseOf(stopped, "a"), "StopOld");
    EXPECT_EQ(For(stopped, "a").tracks, std::set<std::string>{"v2"});
  }
  // Drain -> StopOld after drainSeconds; the old label goes.
  n.state = State(UpgradePhase::kDrain, kPlanNow - 100, kPlanNow - 29);
  const UpgradePlan still = PlanUpgrade(Inputs({n}));
  EXPECT_EQ(PhaseOf(still, "a"), "Drain");
  EXPECT_EQ(still.wake_after_s, 29 - 29 + 1);  // 30 s drain, 29 s gone: wake in 1 s
  n.state = State(UpgradePhase::kDrain, kPlanNow - 100, kPlanNow - 30);
  const UpgradePlan stop = PlanUpgrade(Inputs({n}));
  EXPECT_EQ(PhaseOf(stop, "a"), "StopOld");
  EXPECT_EQ(For(stop, "a").tracks, std::set<std::string>{"v2"});
  // StopOld -> Done once the old pod is gone.
  n.tracks = {"v2"};
  n.state = State(UpgradePhase::kStopOld);
  EXPECT_EQ(PhaseOf(PlanUpgrade(Inputs({n})), "a"), "StopOld");
  n.pods.erase("v1");
  const UpgradePlan done = PlanUpgrade(Inputs({n}));
  EXPECT_EQ(PhaseOf(done, "a"), "Done");
  EXPECT_FALSE(done.active);  // the only node is done: the rollout is over
}

// Clients learn of a move through the API server: a drain that an API outage cut into lasts
// drainSeconds from the first answer after it, for SideBySide, InPlace and a rollback alike.
TEST(UpgradePlanTest, ADrainCountsOnlyTimeAfterTheLastApiOutage) {
  // a: SideBySide in Drain; b: InPlace (v2 -> v2, outdated pod) in Drain; c: rolling back from a
  // new gateway clients were sent to. Each drain began 40 s ago (drainSeconds 30).
  UpgradeNode side = OnV1("a");
  side.tracks = {"v1", "v2"};
  side.pods["v2"] = TrackPod("a", "v2", true);
  side.published = {"v2"};
  side.state = State(UpgradePhase::kDrain, kPlanNow - 100, kPlanNow - 40);
  UpgradeNode in_place = OnV2("b", "h1");
  in_place.state = State(UpgradePhase::kDrain, kPlanNow - 100, kPlanNow - 40);
  in_place.state->from = "v2";
  in_place.state->in_place = true;
  in_place.state->template_hash = "h2";
  UpgradeNode back = side;
  back.name = "c";
  back.published = {"v1"};
  back.state = State(UpgradePhase::kRollBack, kPlanNow - 100, kPlanNow - 40);
  back.state->drain_new = true;
  UpgradeInputs in = Inputs({side, in_place, back}, 3);

  // The API server answered again 10 s ago: 20 s of each drain are left.
  in.api_answering_since = kPlanNow - 10;
  UpgradePlan plan = PlanUpgrade(in);
  EXPECT_EQ(PhaseOf(plan, "a"), "Drain");
  EXPECT_EQ(For(plan, "a").tracks, (std::set<std::string>{"v1", "v2"}));
  EXPECT_EQ(PhaseOf(plan, "b"), "Drain");
  EXPECT_EQ(For(plan, "c").tracks, (std::set<std::string>{"v1", "v2"}));
  EXPECT_EQ(plan.wake_after_s, 20);

  in.now = kPlanNow + 20;
  plan = PlanUpgrade(in);
  EXPECT_EQ(PhaseOf(plan, "a"), "StopOld");
  EXPECT_EQ(PhaseOf(plan, "b"), "StopOld");
  EXPECT_EQ(For(plan, "c").tracks, std::set<std::string>{"v1"});

  // An outage that ended before the drains began changes nothing.
  in.now = kPlanNow;
  in.api_answering_since = kPlanNow - 50;
  plan = PlanUpgrade(in);
  EXPECT_EQ(PhaseOf(plan, "a"), "StopOld");
  EXPECT_EQ(PhaseOf(plan, "b"), "StopOld");
}

// The step that waited on our own EndpointSlice write is taken in the same pass once the write
// was acknowledged; nothing else moves, and the invariants hold at every point in between.
TEST(UpgradePlanTest, SwitchChainsToTheNextStepOnceOurPublishWasAcknowledged) {
  // a: new pod Ready and checked (-> Switch); b: still starting; c: old pod still there in StopOld;
  // d, e: waiting (maxParallel 3 is spent by a, b, c).
  UpgradeNode a = OnV1("a");
  a.tracks = {"v1", "v2"};
  a.pods["v2"] = TrackPod("a", "v2", true);
  a.state = State(UpgradePhase::kStartNew);
  a.validation = Validation{true, "", ""};
  UpgradeNode b = OnV1("b");
  b.tracks = {"v1", "v2"};
  b.pods["v2"] = TrackPod("b", "v2", false);
  b.state = State(UpgradePhase::kStartNew);
  UpgradeNode c = OnV1("c");
  c.tracks = {"v2"};
  c.pods["v2"] = TrackPod("c", "v2", true);
  c.published = {"v2"};
  c.state = State(UpgradePhase::kStopOld);
  UpgradeInputs in = Inputs({a, b, c, OnV1("d"), OnV1("e")}, 3);
  in.spec.drain_seconds = 0;
  const UpgradePlan first = PlanUpgrade(in);
  ASSERT_EQ(PhaseOf(first, "a"), "Switch");
  EXPECT_EQ(NodeRole(For(first, "a"), "v2", "v2"), EndpointRole::kActive);
  EXPECT_EQ(NodeRole(For(first, "a"), "v1", "v2"), EndpointRole::kDraining);
  ASSERT_TRUE(WaitsOnPublish(in, first));

  // Not acknowledged (the slice write failed): nothing more happens in this pass.
  const UpgradePlan unacked = PlanUpgrade(AfterWrites(in, first, {}));
  EXPECT_EQ(PhaseOf(unacked, "a"), "Switch");
  EXPECT_EQ(For(unacked, "a").tracks, (std::set<std::string>{"v1", "v2"}));

  // Acknowledged: the old gateway of a stops now; the others decide as before, with no new start
  // (a is still in flight) and no repeated transition.
  const UpgradeInputs after = AfterWrites(in, first, {{"a", {"v2"}}});
  EXPECT_EQ(after.nodes[0].state, For(first, "a").state);
  EXPECT_EQ(after.nodes[0].published, (std::set<std::string>{"v1", "v2"}));
  EXPECT_FALSE(WaitsOnPublish(after, PlanUpgrade(after)));
  const UpgradePlan chained = PlanUpgrade(after);
  EXPECT_EQ(PhaseOf(chained, "a"), "StopOld");
  EXPECT_EQ(For(chained, "a").tracks, std::set<std::string>{"v2"});
  EXPECT_EQ(For(chained, "a").transition, "Switch -> StopOld");
  EXPECT_EQ(NodeRole(For(chained, "a"), "v1", "v2"), EndpointRole::kAbsent);
  EXPECT_EQ(NodeRole(For(chained, "a"), "v2", "v2"), EndpointRole::kActive);
  for (const std::string node : {"b", "c", "d", "e"}) {
    EXPECT_EQ(For(chained, node).state, For(first, node).state) << node;
    EXPECT_EQ(For(chained, node).tracks, For(first, node).tracks) << node;
    EXPECT_EQ(For(chained, node).transition, "") << node;
  }
  EXPECT_EQ(chained.phases.stop_old, 2);
  EXPECT_EQ(chained.phases.switch_, 0);
  EXPECT_EQ(chained.phases.pending, 2);

  // With a drain time the drain starts at once instead.
  in.spec.drain_seconds = 30;
  const UpgradePlan drain_first = PlanUpgrade(in);
  const UpgradePlan drained =
      PlanUpgrade(AfterWrites(in, drain_first, {{"a", std::set<std::string>{"v2"}}}));
  EXPECT_EQ(PhaseOf(drained, "a"), "Drain");
  EXPECT_EQ(For(drained, "a").tracks, (std::set<std::string>{"v1", "v2"}));
  EXPECT_EQ(NodeRole(For(drained, "a"), "v1", "v2"), EndpointRole::kDraining);

  // Nothing waits on a publish: no chain. A node already shown published takes its step anyway.
  UpgradeNode shown = a;
  shown.state = State(UpgradePhase::kSwitch);
  shown.published = {"v1", "v2"};
  UpgradeInputs plain = Inputs({shown, b}, 3);
  plain.spec.drain_seconds = 0;
  EXPECT_FALSE(WaitsOnPublish(plain, PlanUpgrade(plain)));
  EXPECT_FALSE(WaitsOnPublish(Inputs({b}, 3), PlanUpgrade(Inputs({b}, 3))));
}

TEST(UpgradePlanTest, EndpointRolesFollowThePhase) {
  NodeDecision d;
  d.tracks = {"v1", "v2"};
  d.state = State(UpgradePhase::kValidate);
  EXPECT_EQ(NodeRole(d, "v1", "v2"), EndpointRole::kActive);
  EXPECT_EQ(NodeRole(d, "v2", "v2"), EndpointRole::kAbsent);
  d.state->phase = UpgradePhase::kDrain;
  EXPECT_EQ(NodeRole(d, "v1", "v2"), EndpointRole::kDraining);
  EXPECT_EQ(NodeRole(d, "v2", "v2"), EndpointRole::kActive);
  d.state->phase = UpgradePhase::kStopOld;
  EXPECT_EQ(NodeRole(d, "v1", "v2"), EndpointRole::kAbsent);
  d.state->phase = UpgradePhase::kRollBack;
  EXPECT_EQ(NodeRole(d, "v1", "v2"), EndpointRole::kActive);
  EXPECT_EQ(NodeRole(d, "v2", "v2"), EndpointRole::kAbsent);
  // Without state: the track other than the target serves until the node is moved.
  NodeDecision plain;
  plain.tracks = {"v1", "v2"};
  EXPECT_EQ(NodeRole(plain, "v1", "v2"), EndpointRole::kActive);
  EXPECT_EQ(NodeRole(plain, "v2", "v2"), EndpointRole::kAbsent);
  plain.tracks = {"v2"};
  EXPECT_EQ(NodeRole(plain, "v2", "v2"), EndpointRole::kActive);
}

TEST(UpgradePlanTest, ValidationTimeoutRollsBackWithTheReasonThenFails) {
  UpgradeNode n = OnV1("a");
  n.tracks = {"v1", "v2"};
  n.pods["v2"] = TrackPod("a", "v2", false);
  n.pods["v2"].waiting_reason = "CrashLoopBackOff";
  n.pods["v2"].message = "listen tcp :7072: bind: address already in use";
  n.state = State(UpgradePhase::kStartNew, kPlanNow - 600);
  const UpgradePlan plan = PlanUpgrade(Inputs({n}));
  const NodeDecision& d = For(plan, "a");
  ASSERT_TRUE(d.state);
  EXPECT_EQ(d.state->phase, UpgradePhase::kRollBack);
  EXPECT_EQ(d.state->reason, "NewGatewayNotReady");
  EXPECT_NE(d.state->message.find("address already in use"), std::string::npos);
  EXPECT_TRUE(d.state->keep_failed);
  EXPECT_TRUE(d.warning);
  // The new label goes at once (the node was never published on v2); the old keeps serving.
  EXPECT_EQ(d.tracks, std::set<std::string>{"v1"});
  EXPECT_EQ(NodeRole(d, "v1", "v2"), EndpointRole::kActive);
  // Once the new pod is gone: Failed, and it stays there.
  n.state = d.state;
  n.tracks = {"v1"};
  n.pods.erase("v2");
  const UpgradePlan failed = PlanUpgrade(Inputs({n, OnV1("b")}));
  EXPECT_EQ(PhaseOf(failed, "a"), "Failed");
  ASSERT_EQ(failed.failed.size(), 1u);
  EXPECT_EQ(failed.failed[0].reason, "NewGatewayNotReady");
  // autoRollback false: the other nodes go on.
  EXPECT_EQ(PhaseOf(failed, "b"), "StartNew");
  EXPECT_FALSE(failed.halted);
}

TEST(UpgradePlanTest, AutoRollbackHaltsAndRevertsNodesInFlight) {
  UpgradeNode bad = OnV1("a");
  bad.state = State(UpgradePhase::kFailed);
  bad.state->reason = "NewGatewayNotReady";
  UpgradeNode validating = OnV1("b");
  validating.tracks = {"v1", "v2"};
  validating.pods["v2"] = TrackPod("b", "v2", true);
  validating.state = State(UpgradePhase::kValidate);
  UpgradeNode draining = OnV1("c");
  draining.tracks = {"v1", "v2"};
  draining.pods["v2"] = TrackPod("c", "v2", true);
  draining.published = {"v2"};
  draining.state = State(UpgradePhase::kDrain);
  UpgradeNode done = OnV1("d");
  done.tracks = {"v2"};
  done.pods = {{"v2", TrackPod("d", "v2", true)}};
  done.state = State(UpgradePhase::kDone);
  UpgradeInputs in = Inputs({bad, validating, draining, done, OnV1("e")});
  in.spec.auto_rollback = true;
  const UpgradePlan plan = PlanUpgrade(in);
  EXPECT_TRUE(plan.halted);
  EXPECT_EQ(PhaseOf(plan, "a"), "Failed");
  EXPECT_EQ(PhaseOf(plan, "b"), "RollBack");
  EXPECT_EQ(For(plan, "b").state->reason, "RolloutHalted");
  EXPECT_FALSE(For(plan, "b").state->keep_failed);
  EXPECT_EQ(For(plan, "b").tracks, std::set<std::string>{"v1"});
  // Clients were already on c's new gateway: it serves on, listed as draining, while clients
  // move back to the old one.
  EXPECT_EQ(PhaseOf(plan, "c"), "RollBack");
  EXPECT_TRUE(For(plan, "c").state->drain_new);
  EXPECT_FALSE(For(plan, "b").state->drain_new);
  EXPECT_EQ(For(plan, "c").tracks, (std::set<std::string>{"v1", "v2"}));
  EXPECT_EQ(NodeRole(For(plan, "c"), "v1", "v2"), EndpointRole::kActive);
  EXPECT_EQ(NodeRole(For(plan, "c"), "v2", "v2"), EndpointRole::kDraining);
  // Once the slices no longer list it ready, its label stays for the drain, then goes.
  UpgradeNode rolling = draining;
  rolling.state = For(plan, "c").state;
  rolling.published = {"v1"};
  UpgradeInputs later = in;
  later.nodes = {bad, rolling};
  later.now = kPlanNow + 29;
  const UpgradePlan during = PlanUpgrade(later);
  EXPECT_EQ(For(during, "c").tracks, (std::set<std::string>{"v1", "v2"}));
  EXPECT_EQ(during.wake_after_s, 1);
  later.now = kPlanNow + 30;
  EXPECT_EQ(For(PlanUpgrade(later), "c").tracks, std::set<std::string>{"v1"});
  EXPECT_EQ(PhaseOf(plan, "d"), "Done");  // finished nodes stay
  EXPECT_EQ(PhaseOf(plan, "e"), "none");  // nothing new starts
  // A halted rollback ends without Failed: the node is fine.
  UpgradeNode back = validating;
  back.state = For(plan, "b").state;
  back.tracks = {"v1"};
  back.pods.erase("v2");
  in.nodes = {bad, back};
  EXPECT_EQ(PhaseOf(PlanUpgrade(in), "b"), "none");
}

TEST(UpgradePlanTest, AFailedNodeHoldsItsMaxParallelSlot) {
  // autoRollback false: the others go on, but a failed node keeps its slot until it is cleared,
  // so a bad build fails at most maxParallel nodes instead of every node in turn.
  UpgradeNode bad = OnV1("a");
  bad.state = State(UpgradePhase::kFailed);
  bad.state->reason = "NewGatewayNotReady";
  UpgradePlan plan = PlanUpgrade(Inputs({bad, OnV1("b"), OnV1("c")}, 1));
  EXPECT_EQ(PhaseOf(plan, "b"), "none");
  EXPECT_EQ(PhaseOf(plan, "c"), "none");
  EXPECT_FALSE(plan.halted);
  EXPECT_EQ(plan.held_by_failed, 2);
  EXPECT_EQ(plan.phases.pending, 2);
  // A second slot lets one more node try; that node moving is not "held by failures".
  plan = PlanUpgrade(Inputs({bad, OnV1("b"), OnV1("c")}, 2));
  EXPECT_EQ(PhaseOf(plan, "b"), "StartNew");
  EXPECT_EQ(PhaseOf(plan, "c"), "none");
  EXPECT_EQ(plan.held_by_failed, 0);
  // Cleared (the admin removed its state after a fix): the budget is back.
  bad.state.reset();
  bad.tracks = {"v1"};
  plan = PlanUpgrade(Inputs({bad, OnV1("b"), OnV1("c")}, 1));
  EXPECT_EQ(PhaseOf(plan, "a"), "StartNew");
  EXPECT_EQ(plan.held_by_failed, 0);
}

TEST(UpgradePlanTest, AnInPlaceFailureWithoutAGatewayUsesMaxUnavailable) {
  UpgradeNode bad = OnV1("a");
  bad.tracks = {"v2"};
  bad.pods = {{"v2", TrackPod("a", "v2", false)}};
  bad.state = State(UpgradePhase::kFailed);
  bad.state->in_place = true;
  bad.state->template_hash = "h2";
  UpgradeInputs in = Inputs({bad, OnV1("b"), OnV1("c")}, 5);
  in.spec.strategy = crd::UpgradeStrategy::kInPlace;
  in.spec.max_unavailable = crd::IntOrString::Int(1);
  UpgradePlan plan = PlanUpgrade(in);
  // a serves nothing: it is the one node maxUnavailable allows down, so nobody else goes down.
  EXPECT_EQ(PhaseOf(plan, "b"), "none");
  EXPECT_EQ(PhaseOf(plan, "c"), "none");
  EXPECT_EQ(plan.held_by_failed, 2);
  EXPECT_EQ(NodeRole(For(plan, "a"), "v2", "v2"), EndpointRole::kActive);
  // Its replacement came up after all (a fixed host): it no longer counts as unavailable.
  in.nodes[0].pods["v2"].ready = true;
  plan = PlanUpgrade(in);
  EXPECT_EQ(PhaseOf(plan, "b"), "Drain");
  EXPECT_EQ(PhaseOf(plan, "c"), "none");
}

TEST(UpgradePlanTest, ANewTargetRollsBackMovesForTheOldOne) {
  UpgradeNode validating = OnV1("a");
  validating.tracks = {"v1", "v2"};
  validating.pods["v2"] = TrackPod("a", "v2", true);
  validating.state = State(UpgradePhase::kValidate);
  UpgradeNode done = OnV1("b");
  done.tracks = {"v2"};
  done.pods = {{"v2", TrackPod("b", "v2", true)}};
  done.state = State(UpgradePhase::kDone);
  // The spec went back to 1.x during the rollout.
  UpgradeInputs in = Inputs({validating, done});
  in.target = "v1";
  in.target_hash = "h1";
  const UpgradePlan plan = PlanUpgrade(in);
  EXPECT_EQ(PhaseOf(plan, "a"), "RollBack");
  EXPECT_EQ(For(plan, "a").state->reason, "TargetChanged");
  EXPECT_EQ(PhaseOf(plan, "b"), "none");  // done on v2: forgotten, then moved like any v2 node
  EXPECT_EQ(For(plan, "b").tracks, std::set<std::string>{"v2"});
  UpgradeInputs next = in;
  next.nodes[1].state.reset();
  EXPECT_EQ(PhaseOf(PlanUpgrade(next), "b"), "StartNew");
  EXPECT_EQ(For(PlanUpgrade(next), "b").state->from, "v2");
}

TEST(UpgradePlanTest, ARefusedSpecChangesNothing) {
  UpgradeNode n = OnV1("a");
  n.tracks = {"v1", "v2"};
  n.state = State(UpgradePhase::kDrain, kPlanNow - 100, kPlanNow - 100);
  UpgradeInputs in = Inputs({n, OnV1("b")});
  in.may_start = false;
  const UpgradePlan plan = PlanUpgrade(in);
  EXPECT_EQ(For(plan, "a").state, n.state);
  EXPECT_EQ(For(plan, "a").tracks, n.tracks);
  EXPECT_EQ(PhaseOf(plan, "b"), "none");
  EXPECT_EQ(For(plan, "b").tracks, std::set<std::string>{"v1"});
}

TEST(UpgradePlanTest, PortsHeldByTheOldTrackBlockSideBySide) {
  UpgradeInputs in = Inputs({OnV1("a")});
  in.port_conflict = "track v2 would use ports 7071/19100 that track v1 still holds";
  const UpgradePlan plan = PlanUpgrade(in);
  EXPECT_EQ(PhaseOf(plan, "a"), "none");
  EXPECT_EQ(plan.blocked, in.port_conflict);
  EXPECT_TRUE(plan.active);
}

TEST(UpgradePlanTest, FreshNodesGetTheTargetWithoutAnUpgrade) {
  UpgradeNode fresh;
  fresh.name = "new";
  fresh.eligible = true;
  UpgradeNode unverified = fresh;
  unverified.name = "bad";
  unverified.eligible = false;
  const UpgradePlan plan = PlanUpgrade(Inputs({fresh, unverified}));
  EXPECT_EQ(For(plan, "new").tracks, std::set<std::string>{"v2"});
  EXPECT_TRUE(For(plan, "bad").tracks.empty());
  EXPECT_FALSE(plan.active);
}

TEST(UpgradePlanTest, InPlaceReplacesOutdatedPodsWithinMaxUnavailable) {
  UpgradeInputs in = Inputs({OnV2("a", "h1"), OnV2("b", "h1"), OnV2("c", "h2")}, 5);
  in.spec.max_unavailable = crd::IntOrString::Int(1);
  UpgradePlan plan = PlanUpgrade(in);
  EXPECT_EQ(PhaseOf(plan, "a"), "Drain");
  EXPECT_TRUE(For(plan, "a").state->in_place);
  EXPECT_EQ(NodeRole(For(plan, "a"), "v2", "v2"), EndpointRole::kDraining);
  EXPECT_EQ(PhaseOf(plan, "b"), "none");  // maxUnavailable 1
  EXPECT_EQ(PhaseOf(plan, "c"), "none");  // up to date
  EXPECT_EQ(plan.moving_total, 2);
  // After the drain the outdated pod is deleted.
  in.nodes[0].state = For(plan, "a").state;
  in.now += 30;
  plan = PlanUpgrade(in);
  EXPECT_EQ(PhaseOf(plan, "a"), "StopOld");
  EXPECT_EQ(For(plan, "a").delete_pod, "gw-v2-a");
  EXPECT_EQ(NodeRole(For(plan, "a"), "v2", "v2"), EndpointRole::kAbsent);
  EXPECT_EQ(PhaseOf(plan, "b"), "none");
  // The replacement comes up with the new template: Validate, then Done after the check.
  in.nodes[0].state = For(plan, "a").state;
  in.nodes[0].pods["v2"] = TrackPod("a", "v2", true, "h2");
  plan = PlanUpgrade(in);
  EXPECT_EQ(PhaseOf(plan, "a"), "Validate");
  in.nodes[0].state = For(plan, "a").state;
  EXPECT_TRUE(NeedsValidation(in.nodes[0], in));
  in.nodes[0].validation = Validation{true, "", ""};
  plan = PlanUpgrade(in);
  EXPECT_EQ(PhaseOf(plan, "a"), "Done");
  EXPECT_EQ(PhaseOf(plan, "b"), "Drain");  // a is back: the next one goes
}

TEST(UpgradePlanTest, ANodeDoneWithAnOutdatedPodIsUpdatedInPlace) {
  // The track's template changed after the node finished its move (a patch release of 2.x).
  UpgradeNode done = OnV2("a", "h-old");
  done.state = State(UpgradePhase::kDone);
  const UpgradePlan plan = PlanUpgrade(Inputs({done}));
  ASSERT_TRUE(For(plan, "a").state);
  EXPECT_EQ(PhaseOf(plan, "a"), "Drain");
  EXPECT_TRUE(For(plan, "a").state->in_place);
  EXPECT_EQ(For(plan, "a").state->template_hash, "h2");
  // Up to date: stays Done, no rollout.
  done.pods["v2"].template_hash = "h2";
  const UpgradePlan still = PlanUpgrade(Inputs({done}));
  EXPECT_EQ(PhaseOf(still, "a"), "Done");
  EXPECT_FALSE(still.active);
}

TEST(UpgradePlanTest, MaxUnavailablePercentRoundsDown) {
  std::vector<UpgradeNode> nodes;
  for (int i = 0; i < 10; ++i) {
    UpgradeNode n = OnV1("n" + std::to_string(i));
    nodes.push_back(n);
  }
  UpgradeInputs in = Inputs(nodes, 10);
  in.spec.strategy = crd::UpgradeStrategy::kInPlace;
  in.spec.max_unavailable = crd::IntOrString::Str("25%");
  const UpgradePlan plan = PlanUpgrade(in);
  EXPECT_EQ(plan.phases.drain, 2);
  EXPECT_EQ(plan.phases.pending, 8);
  EXPECT_TRUE(plan.in_place);
}

// A node under maintenance, as StepMaintenance leaves it while draining.
UpgradeNode UnderMaintenance(UpgradeNode n, MaintenancePhase phase = MaintenancePhase::kDraining) {
  n.maintenance.applies = true;
  n.maintenance.phase = phase;
  n.maintenance.state = MaintenanceState{kPlanNow - 1, "cordoned", n.published};
  n.maintenance.tracks = phase == MaintenancePhase::kDraining ? n.tracks : std::set<std::string>{};
  n.maintenance.wake_at = phase == MaintenancePhase::kDraining ? kPlanNow + 29 : 0;
  return n;
}

TEST(UpgradePlanTest, MaintenanceTakesANodeOutOfTheRolloutAndDropsItsMove) {
  UpgradeNode moving = OnV1("a");
  moving.tracks = {"v1", "v2"};
  moving.pods["v2"] = TrackPod("a", "v2", true);
  moving.state = State(UpgradePhase::kSwitch);
  moving.published = {"v2"};
  const UpgradePlan plan =
      PlanUpgrade(Inputs({UnderMaintenance(moving), UnderMaintenance(OnV1("b"))}, 2));
  const NodeDecision& a = For(plan, "a");
  EXPECT_FALSE(a.state) << "the move is dropped; the node comes back as a new node";
  EXPECT_EQ(a.tracks, (std::set<std::string>{"v1", "v2"})) << "both gateways serve the drain";
  EXPECT_EQ(a.transition, "") << "the maintenance has its own event";
  // Only the track clients were sent to drains; the other is not listed at all.
  EXPECT_EQ(NodeRole(a, "v2", "v2"), EndpointRole::kDraining);
  EXPECT_EQ(NodeRole(a, "v1", "v2"), EndpointRole::kAbsent);
  // Not a candidate: nothing starts on a node under maintenance.
  EXPECT_EQ(PhaseOf(plan, "b"), "none");
  EXPECT_EQ(NodeRole(For(plan, "b"), "v1", "v2"), EndpointRole::kDraining);
  EXPECT_EQ(plan.phases.pending, 0);
  EXPECT_FALSE(plan.active);
  EXPECT_EQ(plan.wake_after_s, 29) << "woken when the drain ends";

  const UpgradePlan stopped =
      PlanUpgrade(Inputs({UnderMaintenance(OnV1("b"), MaintenancePhase::kStopped)}));
  EXPECT_TRUE(For(stopped, "b").tracks.empty()) << "the gateway stops";
  EXPECT_EQ(NodeRole(For(stopped, "b"), "v1", "v2"), EndpointRole::kAbsent);
}

TEST(UpgradePlanTest, AFailedNodeUnderMaintenanceStaysFailedAndHalts) {
  UpgradeNode failed = OnV1("a");
  failed.state = State(UpgradePhase::kFailed);
  failed.state->keep_failed = true;
  UpgradeInputs in = Inputs({UnderMaintenance(failed), OnV1("b")}, 2);
  in.spec.auto_rollback = true;
  const UpgradePlan plan = PlanUpgrade(in);
  ASSERT_TRUE(For(plan, "a").state);
  EXPECT_EQ(PhaseOf(plan, "a"), "Failed");
  EXPECT_TRUE(plan.halted);
  EXPECT_EQ(PhaseOf(plan, "b"), "none");
  EXPECT_EQ(plan.failed.size(), 1u);
}

TEST(UpgradePlanTest, ANodeUnderMaintenanceCountsAgainstMaxUnavailable) {
  UpgradeInputs in = Inputs({UnderMaintenance(OnV1("a")), OnV1("b"), OnV1("c")}, 3);
  in.spec.strategy = crd::UpgradeStrategy::kInPlace;
  in.spec.max_unavailable = crd::IntOrString::Int(1);
  EXPECT_EQ(PlanUpgrade(in).phases.drain, 0) << "one node is already out of service";
  in.spec.max_unavailable = crd::IntOrString::Int(2);
  EXPECT_EQ(PlanUpgrade(in).phases.drain, 1);
}

TEST(UpgradePlanTest, ARefusedSpecLeavesMaintenanceAlone) {
  UpgradeInputs in = Inputs({UnderMaintenance(OnV1("a"))});
  in.may_start = false;
  const UpgradePlan plan = PlanUpgrade(in);
  const NodeDecision& a = For(plan, "a");
  EXPECT_FALSE(a.maintenance.applies);
  EXPECT_EQ(a.tracks, (std::set<std::string>{"v1"}));
}

}  // namespace
}  // namespace rdmastack::gatewaypool
