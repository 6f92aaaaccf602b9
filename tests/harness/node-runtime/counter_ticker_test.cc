// The harness' port counter ticker over a copy of a node fixture, read back by the agent's own
// probe: what the simulated cluster's agents see between two probes.
#include "tests/harness/node-runtime/counter_ticker.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "node/probe/node_probe.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::sim {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

TEST(CounterRatesTest, ParsesLinesAndNamesTheBadOne) {
  auto rates = ParseCounterRates(
      "# traffic\nmlx5_0 1 port_xmit_data 250000000\n\nmlx5_1 2 link_downed 0.01  # a flap\n",
      "f.txt");
  ASSERT_TRUE(rates.ok()) << rates.status().ToString();
  EXPECT_EQ(*rates, (std::vector<CounterRate>{{"mlx5_0", 1, "port_xmit_data", 250000000},
                                              {"mlx5_1", 2, "link_downed", 0.01}}));
  for (const char* bad :
       {"mlx5_0 1 port_xmit_data", "mlx5_0 0 port_xmit_data 1", "mlx5_0 1 port_xmit_data -1",
        "mlx5_0 1 ../../x 1", "mlx5_0 1 port_xmit_data 1 2", "mlx5_0 one port_xmit_data 1"}) {
    auto r = ParseCounterRates(std::string("# ok\n") + bad + "\n", "f.txt");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("f.txt line 2"), std::string::npos) << r.status().message();
  }
}

class CounterTickerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("counter-ticker-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::copy(testing::SourcePath("tests/fixtures/nodes/storage-cx6-ib-ipoib-bond0-el8-inbox/root"),
             dir_ / "root", fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The counter as the agent's probe reads it.
  uint64_t Probed(const std::string& device, const std::string& counter) const {
    node::ProbeOptions o;
    o.root = (dir_ / "root").string();
    const node::NodeFacts f = node::ProbeNode(o);
    for (const auto& d : f.rdma_devices) {
      if (d.name != device) continue;
      for (const auto& c : d.ports.at(0).counters) {
        if (c.name == counter) return c.value;
      }
    }
    ADD_FAILURE() << device << " " << counter << " not probed";
    return 0;
  }

  fs::path dir_;
};

TEST_F(CounterTickerTest, TheAgentSeesTheCountersMoveBetweenProbes) {
  const uint64_t sent = Probed("mlx5_0", "port_xmit_data");
  const uint64_t downed = Probed("mlx5_0", "link_downed");
  CounterTicker ticker((dir_ / "root").string(),
                       {{"mlx5_0", 1, "port_xmit_data", 250000000},
                        {"mlx5_0", 1, "out_of_buffer", 0.5}});  // a hw_counters file
  ASSERT_TRUE(ticker.Tick(seconds(0)).ok());
  EXPECT_EQ(Probed("mlx5_0", "port_xmit_data"), sent);
  ASSERT_TRUE(ticker.Tick(seconds(10)).ok());
  EXPECT_EQ(Probed("mlx5_0", "port_xmit_data"), sent + 2'500'000'000u);
  EXPECT_EQ(Probed("mlx5_0", "out_of_buffer"), 5u);
  // From the first tick's value, so a fractional rate adds up without drift.
  ASSERT_TRUE(ticker.Tick(seconds(21)).ok());
  EXPECT_EQ(Probed("mlx5_0", "port_xmit_data"), sent + 5'250'000'000u);
  EXPECT_EQ(Probed("mlx5_0", "out_of_buffer"), 10u);
  EXPECT_EQ(Probed("mlx5_0", "link_downed"), downed);  // not in the rates: as written
}

TEST_F(CounterTickerTest, AMissingCounterIsNamedAndTheOthersStillMove) {
  const uint64_t sent = Probed("mlx5_1", "port_xmit_data");
  CounterTicker ticker((dir_ / "root").string(),
                       {{"mlx5_9", 1, "port_xmit_data", 1}, {"mlx5_1", 1, "port_xmit_data", 100}});
  (void)ticker.Tick(seconds(0));  // the missing one fails here too
  const Status s = ticker.Tick(seconds(1));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("mlx5_9/ports/1"), std::string::npos) << s.message();
  EXPECT_EQ(Probed("mlx5_1", "port_xmit_data"), sent + 100);
}

TEST_F(CounterTickerTest, OneTickerPerNodeWhoseFixtureHasRates) {
  fs::create_directories(dir_ / "root" / "etc/rdmastack-fixture");
  std::ofstream(dir_ / "root" / kCounterRatesFile) << "mlx5_0 1 port_rcv_data 300000000\n";
  fs::create_directories(dir_ / "other");
  NodeTable nodes{{"stg-node-0", {"stg-node-0", "ns0", "198.18.0.10", (dir_ / "root").string()}},
                  {"gpu-node-0", {"gpu-node-0", "ns1", "198.18.0.11", (dir_ / "other").string()}}};
  auto tickers = TickersFor(nodes);
  ASSERT_TRUE(tickers.ok()) << tickers.status().ToString();
  ASSERT_EQ(tickers->size(), 1u);
  EXPECT_EQ(tickers->front().host_root(), (dir_ / "root").string());
  std::ofstream(dir_ / "root" / kCounterRatesFile) << "mlx5_0 1 port_rcv_data fast\n";
  EXPECT_FALSE(TickersFor(nodes).ok());
}

}  // namespace
}  // namespace rdmastack::sim
