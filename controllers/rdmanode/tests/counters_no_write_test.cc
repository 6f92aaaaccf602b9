// Port counters move on every probe of a busy port, and the agent sends them (PortCounters, apart
// from its report) each probe interval. The RdmaNode reconciler, run on the fake API server with a
// real fixture's report, must not be asked to run for them and must write nothing if it runs, and
// must still write for new facts (so the test can see a write at all).
#include <gtest/gtest.h>

#include "controllers/common/testing/fake_caches.h"
#include "controllers/rdmanode/rdmanode_reconciler.h"
#include "controllers/rdmanode/testing/fixture_reports.h"
#include "crds/types/kinds.h"
#include "operator/k8s/resource.h"
#include "operator/k8s/testing/fake_client.h"

namespace rdmastack::rdmanode {
namespace {

using std::chrono::seconds;

agenthub::AgentIdentity Id() {
  agenthub::AgentIdentity id;
  id.node_name = "stg-1";
  id.agent_version = "0.1.0";
  return id;
}

// `counters` with every counter of every port moved by `delta`.
agent::v1::PortCounters Moved(agent::v1::PortCounters counters, uint64_t delta) {
  for (auto& p : *counters.mutable_ports()) {
    for (auto& c : *p.mutable_counters()) c.set_value(c.value() + delta);
  }
  return counters;
}

class CountersNoWriteTest : public ::testing::Test {
 protected:
  CountersNoWriteTest() {
    api_.Put(k8s::kinds::Node(),
             *k8s::JsonObject::Parse(
                 R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"stg-1"}})"))
        .value();
    caches_.Sync();
    store_.Subscribe([this](const std::string&) { ++notified_; });
  }

  // One reconcile of the node, then the caches catch up; the writes it made.
  std::vector<k8s::testing::Action> Reconcile() {
    api_.ClearActions();
    auto result = reconciler_.Reconcile({"", "stg-1"});
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    caches_.Sync();
    return api_.writes();
  }

  FakeClock clock_;
  k8s::testing::FakeClient api_;
  controllers::testing::FakeCaches caches_{api_};
  const runtime::Store& nodes_ = caches_.Store(k8s::kinds::Node());
  const runtime::Store& rdmanodes_ = caches_.Store(crd::kinds::RdmaNode());
  AgentStateStore store_{clock_, seconds(180)};
  RdmaNodeReconciler reconciler_{api_, nodes_, rdmanodes_, store_, clock_};
  int notified_ = 0;
};

TEST_F(CountersNoWriteTest, CountersChangeStatusUnchangedNoWrite) {
  const std::string fixture = "storage-cx6-ib-ipoib-bond0-el8-inbox";
  const agent::v1::PortCounters first = testing::FixtureCounters(fixture);
  ASSERT_GT(first.ports(0).counters_size(), 0);
  store_.OnAgentConnected(Id());
  store_.OnReport(Id(), testing::FixtureReport(fixture, testing::GatewayRequirements(), "stg-1"));
  store_.OnPortCounters(Id(), first);
  EXPECT_FALSE(Reconcile().empty());  // the RdmaNode and its status
  const int after_first = notified_;

  for (int probe = 1; probe <= 3; ++probe) {
    clock_.Advance(seconds(60));
    store_.OnPortCounters(Id(), Moved(first, 250'000'000ull * probe));
    EXPECT_EQ(notified_, after_first) << "probe " << probe << ": a reconcile was asked for";
    // Even a reconcile for another cause (a resync, an RdmaNode event) writes nothing.
    EXPECT_TRUE(Reconcile().empty()) << "probe " << probe;
    EXPECT_EQ(store_.PortCounters().at("stg-1")->ports(0).counters(0).value(),
              first.ports(0).counters(0).value() + 250'000'000ull * probe);
  }

  // New facts are still written: the port went down.
  clock_.Advance(seconds(60));
  store_.OnReport(Id(), testing::FixtureReport("storage-cx6-ib-port-down",
                                               testing::GatewayRequirements(), "stg-1"));
  EXPECT_GT(notified_, after_first);
  EXPECT_FALSE(Reconcile().empty());
}

}  // namespace
}  // namespace rdmastack::rdmanode
