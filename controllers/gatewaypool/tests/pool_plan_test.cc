// The GatewayPool pass's decisions, from snapshots built by hand: no client, no caches. The
// reconciler tests (gatewaypool_reconciler_test.cc) and the e2e tests cover the snapshot and the
// applier; the upgrade planner's phases are upgrade_plan_test.cc's.
#include "controllers/gatewaypool/pool_plan.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>

#include "controllers/gatewaypool/endpoints.h"
#include "controllers/gatewaypool/tests/test_pools.h"
#include "crds/types/gatewaypool_api.h"

namespace rdmastack::gatewaypool {
namespace {

using testing::AgentStatus;
using testing::SamplePool;

runtime::ObjectPtr NodeObject(const std::string& name, const std::string& rv = "7") {
  auto o = k8s::JsonObject::Parse(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" +
                                  name + R"(","resourceVersion":")" + rv + R"("}})");
  return std::make_shared<const k8s::JsonObject>(std::move(*o));
}

// A pool node the selector picks, its agent reporting bond0 (the sample's interface).
PoolNode Selected(const std::string& name) {
  PoolNode n;
  n.object = NodeObject(name);
  n.name = name;
  n.resource_version = "7";
  n.selected = true;
  n.report = AgentStatus(true, {"bond0 10.10.0.11/24"});
  return n;
}

class PoolPlanTest : public ::testing::Test {
 protected:
  PoolPlanTest() : pool_(SamplePool()) {
    snapshot_.pool = &pool_;
    snapshot_.now = Clock::WallTime{std::chrono::seconds(1'700'000'000)};
    snapshot_.api_answering_since = 1'600'000'000;
    snapshot_.matrix =
        std::make_shared<const compat::CompatibilityMatrix>(testing::ShippedMatrix());
  }

  PoolPlan Plan() { return PlanPool(snapshot_, DecidePool(snapshot_, render_)); }
  std::string Label(const std::string& track) const {
    return NodeTrackLabel("storage", pool_.metadata.name, track);
  }

  crd::GatewayPool pool_;
  PoolSnapshot snapshot_;
  GatewayRenderOptions render_;
};

TEST_F(PoolPlanTest, WhatRefusesTheSpecStartsNothing) {
  struct Case {
    const char* name;
    std::function<void(PoolSnapshot&)> change;
    std::string reason;         // the decision's ("" = the track's own: Compatible)
    std::string secret_reason;  // when a Secret is what is missing
  };
  const std::vector<Case> cases = {
      {"accepted", [](PoolSnapshot&) {}, "Compatible", ""},
      {"no compatibility data",
       [](PoolSnapshot& s) {
         s.matrix = nullptr;
         s.matrix_error = "compatibility.yaml: line 3: bad";
       },
       "CompatibilityDataInvalid", ""},
      {"namespace not served",
       [](PoolSnapshot& s) { s.unserved = "namespace storage is not served"; },
       "NamespaceNotServed", ""},
      {"credentials missing",
       [](PoolSnapshot& s) {
         s.credentials = {SecretState::kMissing, "no Secret"};
       },
       "Compatible", "CredentialsSecretMissing"},
      {"TLS keys missing",
       [](PoolSnapshot& s) {
         s.tls = controllers::SecretCheck{SecretState::kKeyMissing, "no ca.crt"};
       },
       "Compatible", "TlsSecretMissing"},
      {"an older pool's ports", [](PoolSnapshot& s) { s.conflict = PoolConflict{}; }, "Compatible",
       ""},
  };
  for (const Case& c : cases) {
    PoolSnapshot s = snapshot_;
    s.nodes = {Selected("stg-0")};
    c.change(s);
    const PoolPlan plan = PlanPool(s, DecidePool(s, render_));
    const bool accepted = std::string(c.name) == "accepted";
    EXPECT_EQ(plan.inputs.status.decision.reason, c.reason) << c.name;
    if (!c.secret_reason.empty()) {
      EXPECT_EQ(plan.inputs.status.secret_reason, c.secret_reason) << c.name;
    }
    EXPECT_EQ(plan.inputs.may_start, accepted) << c.name;
    EXPECT_EQ(plan.planned_now, accepted) << c.name;
    // Refused: no node is labelled, and no workload is written.
    EXPECT_EQ(plan.nodes.patches.size(), accepted ? 1u : 0u) << c.name;
    const WorkloadWrites w = PlanWorkloads(s, plan.inputs, plan.upgrade);
    EXPECT_EQ(w.daemonset.has_value(), accepted) << c.name;
    EXPECT_EQ(w.service.has_value(), accepted) << c.name;
  }
}

TEST_F(PoolPlanTest, AVerifiedNodeGetsTheTrackLabelAndAFailedOneNothing) {
  snapshot_.nodes = {Selected("stg-0"), Selected("stg-1")};
  snapshot_.nodes[1].report = AgentStatus(false, {"bond0 10.10.0.12/24"}, "PortDown");
  const PoolPlan plan = Plan();
  ASSERT_EQ(plan.nodes.patches.size(), 1u);
  const NodePatch& p = plan.nodes.patches[0];
  EXPECT_EQ(p.node, "stg-0");
  EXPECT_EQ(p.body.Serialize(), R"({"metadata":{"labels":{")" + Label("v1") + R"(":"true"}}})");
  EXPECT_FALSE(p.moves_state);  // a label only: no resourceVersion fence
  EXPECT_FALSE(p.starts);
  ASSERT_EQ(plan.inputs.status.selected.size(), 2u);
  EXPECT_TRUE(plan.inputs.status.selected[0].verdict.verified);
  EXPECT_EQ(plan.inputs.status.selected[1].verdict.reason, "PortDown");
  EXPECT_TRUE(plan.nodes.events.empty());
}

TEST_F(PoolPlanTest, ANodeTheSelectorLeftLosesThePoolsLabelAndAnnotations) {
  PoolNode gone;
  gone.object = NodeObject("stg-9");
  gone.name = "stg-9";
  gone.resource_version = "7";
  gone.marks.labels = {{Label("v1"), "true"}, {"other", "x"}};
  gone.marks.maintenance = R"({"phase":"Draining","since":1})";
  PoolNode stranger = gone;  // carries nothing of the pool: left alone
  stranger.name = "stg-8";
  stranger.marks = {{{"other", "x"}}, std::nullopt, std::nullopt};
  snapshot_.nodes = {gone, stranger};
  const PoolPlan plan = Plan();
  ASSERT_EQ(plan.nodes.patches.size(), 1u);
  const NodePatch& p = plan.nodes.patches[0];
  EXPECT_EQ(p.node, "stg-9");
  EXPECT_EQ(p.body.Serialize(),
            R"({"metadata":{"labels":{")" + Label("v1") + R"(":null},"annotations":{")" +
                NodeMaintenanceAnnotation("storage", pool_.metadata.name) + R"(":null}}})");
  EXPECT_TRUE(p.moves_state);  // the annotation is state: fenced
  EXPECT_TRUE(plan.inputs.status.selected.empty());
}

TEST_F(PoolPlanTest, AnUpgradeStartIsWrittenLastAndFenced) {
  pool_ = SamplePool("gatewaypool-kvcache-2.0.yaml");
  snapshot_.nodes = {Selected("stg-0"), Selected("stg-1")};
  for (PoolNode& n : snapshot_.nodes) n.marks.labels = {{Label("v1"), "true"}};
  const PoolPlan plan = Plan();
  ASSERT_EQ(plan.inputs.upgrade.target, "v2");
  // maxParallel 1: the first node in name order starts, the other waits.
  ASSERT_EQ(plan.nodes.patches.size(), 1u);
  const NodePatch& p = plan.nodes.patches[0];
  EXPECT_EQ(p.node, "stg-0");
  EXPECT_TRUE(p.starts);
  EXPECT_TRUE(p.moves_state);
  EXPECT_EQ(p.resource_version, "7");
  ASSERT_EQ(plan.nodes.events.size(), 1u);
  EXPECT_EQ(plan.nodes.events[0].reason, "UpgradeStartNew");
  EXPECT_EQ(plan.nodes.events[0].node, snapshot_.nodes[0].object);
  // Its stamps are seen as written (first_observed.h).
  ASSERT_EQ(plan.nodes.stamps.size(), 2u);
  EXPECT_EQ(plan.nodes.stamps[0].key, "stg-0/since");
  EXPECT_EQ(plan.nodes.stamps[0].stamp, 1'700'000'000);
}

TEST_F(PoolPlanTest, ARefusedSpecKeepsTheMaintenanceRecord) {
  snapshot_.unserved = "namespace storage is not served";
  snapshot_.nodes = {Selected("stg-0")};
  snapshot_.nodes[0].marks.labels = {{Label("v1"), "true"}};
  snapshot_.nodes[0].marks.maintenance = R"({"phase":"Draining","since":1})";
  snapshot_.nodes[0].unschedulable = false;  // maintenance over, but nothing may change
  const PoolPlan plan = Plan();
  EXPECT_TRUE(plan.nodes.patches.empty());
  EXPECT_TRUE(plan.nodes.events.empty());
}

TEST_F(PoolPlanTest, ATrackNoNodeRunsAnyMoreIsRetiredWithItsSlices) {
  auto owned = [](const std::string& kind, const std::string& name, const std::string& track) {
    auto o = k8s::JsonObject::Parse(R"({"kind":")" + kind + R"(","metadata":{"name":")" + name +
                                    R"(","namespace":"storage","labels":{")" + kTrackLabel +
                                    R"(":")" + track + R"("}}})");
    return std::make_shared<const k8s::JsonObject>(std::move(*o));
  };
  snapshot_.owned.daemonsets = {owned("DaemonSet", DaemonSetName("kvcache", "v0"), "v0")};
  snapshot_.owned.slices = {owned("EndpointSlice", "kvcache-v0-abc", "v0"),
                            owned("EndpointSlice", "kvcache-v1-abc", "v1")};
  snapshot_.nodes = {Selected("stg-0")};
  PoolPlan plan = Plan();
  WorkloadWrites w = PlanWorkloads(snapshot_, plan.inputs, plan.upgrade);
  ASSERT_EQ(w.retired.size(), 1u);
  EXPECT_EQ(w.retired[0].first, snapshot_.owned.daemonsets[0]);
  ASSERT_EQ(w.retired[0].second.size(), 1u);
  EXPECT_EQ(w.retired[0].second[0]->Name(), "kvcache-v0-abc");
  ASSERT_TRUE(w.daemonset.has_value());
  EXPECT_EQ(w.daemonset->existing, nullptr);  // v1's DaemonSet is created
  // A node still labelled v0 keeps the old track alive.
  snapshot_.nodes[0].marks.labels = {{Label("v0"), "true"}};
  plan = Plan();
  w = PlanWorkloads(snapshot_, plan.inputs, plan.upgrade);
  EXPECT_TRUE(w.retired.empty());
}

// A pool that moves to rails: each rail gets its own slices (the node's down rail listed not
// ready), and the single-rail slice of before goes.
TEST_F(PoolPlanTest, EachRailHasItsSlicesAndTheSingleRailSliceGoes) {
  pool_ = SamplePool("gatewaypool-two-rails.yaml");
  auto slice = k8s::JsonObject::Parse(R"({"kind":"EndpointSlice","metadata":{"name":)"
                                      R"("twin-gateway-v1-0","namespace":"storage","labels":{")" +
                                      std::string(kTrackLabel) + R"(":"v1"}}})");
  snapshot_.owned.slices = {std::make_shared<const k8s::JsonObject>(std::move(*slice))};
  PoolNode n = Selected("stg-0");
  n.report = AgentStatus(true, {"ib0 10.10.0.11/16", "ib1 10.11.0.11/16"});
  n.report->netdevs[1].rdma_device = "mlx5_1";
  crd::RdmaDeviceFacts down;
  down.name = "mlx5_1";
  down.ports.push_back({.number = 1, .state = "DOWN", .physical_state = "Polling"});
  n.report->devices.push_back(down);
  n.marks.labels = {{NodeTrackLabel("storage", "twin", "v1"), "true"}};
  snapshot_.nodes = {n};
  controllers::OwnedPod pod;
  pod.name = "twin-gateway-v1-abcde";
  pod.node = "stg-0";
  pod.track = "v1";
  pod.ip = "198.18.0.10";
  pod.ready = true;
  // A pod of the DaemonSet as rendered now (an outdated one would be drained).
  pod.template_hash =
      Plan()
          .inputs.daemonset
          ->GetString({"spec", "template", "metadata", "labels", kTemplateHashLabel})
          .value_or("");
  snapshot_.owned.pods = {pod};
  PoolPlan plan = Plan();
  ASSERT_TRUE(plan.inputs.status.selected[0].verdict.verified)
      << plan.inputs.status.selected[0].verdict.message;
  const WorkloadWrites w = PlanWorkloads(snapshot_, plan.inputs, plan.upgrade);
  std::map<std::string, std::set<std::string>> ready;
  for (const auto* list : {&w.gaining, &w.rest}) {
    for (const ObjectWrite& o : *list) ready[std::string(o.desired.Name())] = ReadyNodes(o.desired);
  }
  EXPECT_EQ(ready, (std::map<std::string, std::set<std::string>>{
                       {"twin-gateway-v1-rail-a-0", {"stg-0"}}, {"twin-gateway-v1-rail-b-0", {}}}));
  ASSERT_EQ(w.unwanted_slices.size(), 1u);
  EXPECT_EQ(w.unwanted_slices[0]->Name(), "twin-gateway-v1-0");
}

TEST_F(PoolPlanTest, TheChainedStepPatchesFromWhatTheFirstWriteLeft) {
  pool_ = SamplePool("gatewaypool-kvcache-2.0.yaml");
  pool_.spec.upgrade.drain_seconds = 0;
  NodeUpgradeState start;
  start.from = "v1";
  start.to = "v2";
  start.phase = UpgradePhase::kStartNew;
  start.started = start.since = 1'699'999'990;
  PoolNode n = Selected("stg-0");
  n.marks.labels = {{Label("v1"), "true"}, {Label("v2"), "true"}};
  n.marks.state = SerializeNodeUpgradeState(start);
  n.upgrade = start;
  snapshot_.nodes = {n};
  for (const std::string track : {"v1", "v2"}) {
    controllers::OwnedPod p;
    p.name = "gw-" + track;
    p.node = "stg-0";
    p.track = track;
    p.ready = true;
    p.ip = "198.18.0.1";
    snapshot_.owned.pods.push_back(p);
  }
  PoolInputs inputs = DecidePool(snapshot_, render_);
  ASSERT_EQ(inputs.upgrade.nodes.size(), 1u);
  // What the caches and the S3 check would say: the new gateway runs the rendered template and
  // answered.
  inputs.upgrade.nodes[0].pods["v2"].template_hash = inputs.upgrade.target_hash;
  inputs.upgrade.nodes[0].validation = Validation{true, "", ""};
  PoolPlan plan = PlanPool(snapshot_, std::move(inputs));
  ASSERT_TRUE(plan.waits_on_publish);
  ASSERT_TRUE(plan.upgrade.nodes[0].state.has_value());
  EXPECT_EQ(plan.upgrade.nodes[0].state->phase, UpgradePhase::kSwitch);
  ASSERT_EQ(plan.nodes.patches.size(), 1u);  // the move to Switch

  // Not acknowledged: nothing more.
  PoolPlan unacked = plan;
  EXPECT_TRUE(PlanAfterPublish(snapshot_, unacked, {}).patches.empty());

  const NodeWrites chained = PlanAfterPublish(snapshot_, plan, {{"stg-0", {"v2"}}});
  ASSERT_TRUE(plan.upgrade.nodes[0].state.has_value());
  EXPECT_EQ(plan.upgrade.nodes[0].state->phase, UpgradePhase::kStopOld);
  ASSERT_EQ(chained.patches.size(), 1u);
  const NodePatch& p = chained.patches[0];
  // Against the node as the first write left it: v2 stays (no write of it), v1 goes.
  const std::string body = p.body.Serialize();
  EXPECT_NE(body.find("\"" + Label("v1") + "\":null"), std::string::npos) << body;
  EXPECT_EQ(body.find(Label("v2")), std::string::npos) << body;
  EXPECT_NE(body.find("StopOld"), std::string::npos) << body;
  EXPECT_TRUE(p.moves_state);
  EXPECT_FALSE(p.starts);
  ASSERT_EQ(chained.events.size(), 1u);
  EXPECT_EQ(chained.events[0].reason, "UpgradeStopOld");
}

}  // namespace
}  // namespace rdmastack::gatewaypool
