// The port counter families over the counters real agents send (the agent's probe and counters
// builder run over the node fixtures): units, labels, the per-node cap, what an agent cannot put in
// a label.
#include "controllers/rdmanode/port_counter_metrics.h"

#include <gtest/gtest.h>

#include "agents/node-agent/daemon/report_proto.h"
#include "controllers/rdmanode/testing/fixture_reports.h"
#include "node/probe/port_counters.h"
#include "tests/harness/golden.h"

namespace rdmastack::rdmanode {
namespace {

using testing::FixtureCounters;

std::shared_ptr<const agent::v1::PortCounters> Shared(agent::v1::PortCounters c) {
  return std::make_shared<const agent::v1::PortCounters>(std::move(c));
}

const runtime::SampledFamily& Family(const std::vector<runtime::SampledFamily>& families,
                                     std::string_view name) {
  for (const auto& f : families) {
    if (f.name == name) return f;
  }
  static const runtime::SampledFamily none;
  ADD_FAILURE() << "no family " << name;
  return none;
}

TEST(PortCounterMetricsTest, OneFamilyPerCounterOfTheAgentInItsOrder) {
  ASSERT_EQ(kPortCounterMetrics.size(), node::kPortCounters.size());
  for (size_t i = 0; i < kPortCounterMetrics.size(); ++i) {
    EXPECT_EQ(kPortCounterMetrics[i].counter, node::kPortCounters[i].name);
    EXPECT_TRUE(kPortCounterMetrics[i].metric.starts_with("rdmastack_rdma_port_"));
    EXPECT_TRUE(kPortCounterMetrics[i].metric.ends_with("_total"));
  }
}

TEST(PortCounterMetricsTest, DataInBytesAndEveryCounterPerNodeDeviceAndPort) {
  const auto families = PortCounterFamilies(
      {{"stg-0", Shared(FixtureCounters("storage-cx6-ib-ipoib-bond0-el8-inbox"))}});
  ASSERT_EQ(families.size(), 10u);
  for (const auto& f : families) {
    EXPECT_EQ(f.type, runtime::SampledType::kCounter) << f.name;
    EXPECT_EQ(f.series.size(), 2u) << f.name;  // mlx5_0 and mlx5_1, one port each
  }
  const auto& sent = Family(families, "rdmastack_rdma_port_transmit_bytes_total");
  ASSERT_EQ(sent.series.size(), 2u);
  EXPECT_EQ(sent.series[0].labels, (std::vector<std::pair<std::string, std::string>>{
                                       {"node", "stg-0"}, {"device", "mlx5_0"}, {"port", "1"}}));
  // The fixture's port_xmit_data file says 184280502836 units of 4 octets.
  EXPECT_EQ(sent.series[0].value, 184280502836.0 * 4);
  EXPECT_EQ(Family(families, "rdmastack_rdma_port_link_downed_total").series[0].value, 0.0);
}

TEST(PortCounterMetricsTest, OnlyTheCountersTheDeviceHas) {
  const auto families =
      PortCounterFamilies({{"gpu-0", Shared(FixtureCounters("gpu-client-cx4-vf-vm"))},
                           {"stg-1", Shared(FixtureCounters("storage-cx6-ib-port-down"))}});
  // The VF has no hw_counters/: its node has no out-of-buffer series, the other node has one.
  const auto& drops = Family(families, "rdmastack_rdma_port_out_of_buffer_drops_total");
  ASSERT_EQ(drops.series.size(), 1u);
  EXPECT_EQ(drops.series[0].labels[0].second, "stg-1");
  const auto& downed = Family(families, "rdmastack_rdma_port_link_downed_total");
  ASSERT_EQ(downed.series.size(), 2u);
  EXPECT_EQ(downed.series[1].value, 3.0);  // the flaky link's history
}

TEST(PortCounterMetricsTest, AtMostSixteenPortsPerNodeAndNothingAnAgentCannotName) {
  agent::v1::PortCounters counters;
  auto add = [&](const std::string& device, int port) {
    auto* p = counters.add_ports();
    p->set_device(device);
    p->set_port(port);
    auto* c = p->add_counters();
    c->set_name("link_downed");
    c->set_value(1);
    auto* unknown = p->add_counters();
    unknown->set_name("np_cnp_sent");  // a counter of a newer agent: not exported
    unknown->set_value(5);
  };
  add("mlx5_0", 1);
  add("mlx5_0", 1);        // the same port twice: once
  add("mlx5_\"x\"\n", 1);  // not a kernel device name
  add(std::string(65, 'm'), 1);
  add("mlx5_1", 0);  // no port 0 on a NIC
  for (int i = 2; i < 40; ++i) add("mlx5_" + std::to_string(i), 1);
  const auto families = PortCounterFamilies({{"big", Shared(counters)}});
  const auto& downed = Family(families, "rdmastack_rdma_port_link_downed_total");
  ASSERT_EQ(downed.series.size(), kMaxPortsPerNode);
  EXPECT_EQ(downed.series.front().labels[1].second, "mlx5_0");
  EXPECT_EQ(downed.series.back().labels[1].second, "mlx5_16");
  size_t all = 0;
  for (const auto& f : families) all += f.series.size();
  EXPECT_EQ(all, kMaxPortsPerNode);
}

TEST(PortCounterMetricsTest, ANodeTheStoreForgetsHasNoSeries) {
  FakeClock clock;
  AgentStateStore store(clock, std::chrono::seconds(60));
  agenthub::AgentIdentity id;
  id.node_name = "stg-0";
  store.OnAgentConnected(id);
  store.OnPortCounters(id, FixtureCounters("storage-cx6-ib-ipoib-bond0-el8-inbox"));
  runtime::MetricsRegistry registry;
  registry.AddSampler(PortCounterSampler(store));
  EXPECT_NE(registry.Render().find("rdmastack_rdma_port_receive_bytes_total{"), std::string::npos);
  store.Forget("stg-0");  // the Node was deleted
  EXPECT_EQ(registry.Render().find("rdmastack_rdma_port_"), std::string::npos);
}

// What the operator serves for the simulated cluster's default nodes, as tests/monitoring reads
// it (fixtures/rendered-port-counters.txt): the names the chart's rules and dashboard may use.
TEST(PortCounterMetricsTest, RenderedForTheDefaultSimulatedNodes) {
  const NodePortCounters nodes{
      {"stg-node-0", Shared(FixtureCounters("storage-cx6-ib-ipoib-bond0-el8-inbox"))},
      {"stg-node-1", Shared(FixtureCounters("gateway-roce-v2-gid3-doca"))},
      {"gpu-node-0", Shared(FixtureCounters("gpu-client-rtxa6000-bar1-256m-peermem-mofed"))},
      {"gpu-node-1", Shared(FixtureCounters("gpu-client-h100-dmabuf-open-inbox"))}};
  runtime::MetricsRegistry registry;
  registry.AddSampler([&] { return PortCounterFamilies(nodes); });
  ::rdmastack::testing::ExpectMatchesGolden("tests/monitoring/fixtures/rendered-port-counters.txt",
                                            registry.Render());
}

}  // namespace
}  // namespace rdmastack::rdmanode
