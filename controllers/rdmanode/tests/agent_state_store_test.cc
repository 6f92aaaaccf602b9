#include "controllers/rdmanode/agent_state_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "controllers/rdmanode/agent_metrics.h"

namespace rdmastack::rdmanode {
namespace {

using std::chrono::seconds;

agenthub::AgentIdentity Id(const std::string& node) {
  agenthub::AgentIdentity id;
  id.node_name = node;
  id.agent_version = "0.1.0";
  return id;
}

agent::v1::NodeReport Report(const std::string& hash) {
  agent::v1::NodeReport r;
  r.set_content_hash(hash);
  r.set_agent_version("0.1.1");
  return r;
}

TEST(AgentStateStoreTest, RecordsWhatAgentsSayAndNotifies) {
  FakeClock clock;
  AgentStateStore store(clock, seconds(60));
  std::vector<std::string> changed;
  store.Subscribe([&](const std::string& node) { changed.push_back(node); });
  EXPECT_FALSE(store.Get("n1"));

  store.OnAgentConnected(Id("n1"));
  auto s = store.Get("n1");
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->connected);
  EXPECT_EQ(s->report, nullptr);

  clock.Advance(seconds(2));
  store.OnReport(Id("n1"), Report("h1"));
  s = store.Get("n1");
  EXPECT_EQ(s->report->content_hash(), "h1");
  EXPECT_EQ(s->agent_version, "0.1.1");
  EXPECT_EQ(s->last_report, clock.WallNow());

  // A heartbeat within the TTL refreshes last_seen without a reconcile.
  store.OnHeartbeat(Id("n1"), clock.WallNow() + seconds(10));
  EXPECT_EQ(store.Get("n1")->last_seen, clock.WallNow() + seconds(10));
  EXPECT_EQ(changed, (std::vector<std::string>{"n1", "n1"}));
  // One after a silence longer than the TTL brings the node back: a reconcile.
  store.OnHeartbeat(Id("n1"), clock.WallNow() + seconds(100));
  EXPECT_EQ(changed.size(), 3u);

  store.OnAgentDisconnected(Id("n1"));
  EXPECT_FALSE(store.Get("n1")->connected);
  EXPECT_EQ(store.Get("n1")->report->content_hash(), "h1");  // the facts stay
  EXPECT_EQ(changed.size(), 4u);

  store.Forget("n1");
  EXPECT_FALSE(store.Get("n1"));
  // Heartbeats and disconnects for unknown nodes are ignored.
  store.OnHeartbeat(Id("n2"), clock.WallNow());
  store.OnAgentDisconnected(Id("n2"));
  EXPECT_FALSE(store.Get("n2"));
  EXPECT_EQ(changed.size(), 4u);
}

// Port counters come each probe from a busy node: kept for the metrics, and shown as a sign of
// life, but never a reason to reconcile unless the agent had been silent past the TTL.
TEST(AgentStateStoreTest, PortCountersAreKeptWithoutAReconcile) {
  FakeClock clock;
  AgentStateStore store(clock, seconds(60));
  int changes = 0;
  store.Subscribe([&](const std::string&) { ++changes; });
  agent::v1::PortCounters counters;
  auto* set = counters.add_ports();
  set->set_device("mlx5_0");
  set->set_port(1);
  auto* c = set->add_counters();
  c->set_name("port_xmit_data");
  c->set_value(100);
  store.OnPortCounters(Id("n0"), counters);  // an unknown node: nothing to keep
  EXPECT_TRUE(store.PortCounters().empty());

  store.OnAgentConnected(Id("n1"));
  store.OnReport(Id("n1"), Report("h1"));
  EXPECT_EQ(changes, 2);
  EXPECT_TRUE(store.PortCounters().empty());  // none sent yet: no series
  clock.Advance(seconds(59));
  c->set_value(250);
  store.OnPortCounters(Id("n1"), counters);
  EXPECT_EQ(changes, 2);
  EXPECT_EQ(store.PortCounters().at("n1")->ports(0).counters(0).value(), 250u);
  EXPECT_EQ(store.Get("n1")->last_seen, clock.WallNow());
  EXPECT_EQ(store.Get("n1")->report->content_hash(), "h1");

  clock.Advance(seconds(61));  // silent past the TTL: back from Stale is news
  store.OnPortCounters(Id("n1"), counters);
  EXPECT_EQ(changes, 3);
  store.Forget("n1");
  EXPECT_TRUE(store.PortCounters().empty());
}

// The hub calls from many threads while a reconciler reads.
TEST(AgentStateStoreTest, ConcurrentEventsAndReads) {
  RealClock& clock = RealClock::Instance();
  AgentStateStore store(clock, seconds(60));
  std::atomic<int> notified{0};
  store.Subscribe([&](const std::string&) { notified.fetch_add(1); });
  constexpr int kThreads = 4, kEach = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const auto id = Id("node-" + std::to_string(t % 2));
      for (int i = 0; i < kEach; ++i) {
        store.OnReport(id, Report(std::to_string(i)));
        store.OnHeartbeat(id, clock.WallNow());
        (void)store.Get(id.node_name);
      }
    });
  }
  std::thread reader([&] {
    for (int i = 0; i < kEach; ++i) {
      if (auto s = store.Get("node-0"); s && s->report) (void)s->report->content_hash();
    }
  });
  for (auto& th : threads) th.join();
  reader.join();
  EXPECT_EQ(notified.load(), kThreads * kEach);
  EXPECT_TRUE(store.Get("node-0")->report);
  EXPECT_TRUE(store.Get("node-1")->report);
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
