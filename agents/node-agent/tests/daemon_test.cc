// Pure parts of the daemon: backoff, report building and content hashing, hub requirements.
#include <gtest/gtest.h>

#include "agents/node-agent/cli/run_command.h"
#include "agents/node-agent/daemon/backoff.h"
#include "agents/node-agent/daemon/report_proto.h"
#include "node/checks/checks.h"
#include "node/testing/fixture_util.h"

namespace rdmastack::agent {
namespace {

using std::chrono::milliseconds;

TEST(BackoffTest, GrowsExponentiallyUpToMaxWithJitter) {
  double r = 0.5;  // no jitter at the midpoint
  Backoff b(BackoffPolicy{milliseconds(100), milliseconds(1000), 2.0, 0.2}, [&] { return r; });
  EXPECT_EQ(b.Next(), milliseconds(100));
  EXPECT_EQ(b.Next(), milliseconds(200));
  EXPECT_EQ(b.Next(), milliseconds(400));
  EXPECT_EQ(b.Next(), milliseconds(800));
  EXPECT_EQ(b.Next(), milliseconds(1000));
  EXPECT_EQ(b.Next(), milliseconds(1000));
  r = 0.0;
  EXPECT_EQ(b.Next(), milliseconds(800));  // -20 %
  r = 0.999999;
  EXPECT_NEAR(static_cast<double>(b.Next().count()), 1200.0, 1.0);  // +20 %
  b.Reset();
  r = 0.5;
  EXPECT_EQ(b.Next(), milliseconds(100));
  for (int i = 0; i < 200; ++i) b.Next();  // no overflow after many attempts
  EXPECT_EQ(b.Next(), milliseconds(1000));
}

std::vector<ProfileEvaluation> EvaluateFor(const node::NodeFacts& f, const node::Requirements& r) {
  return {{"", node::Evaluate(f, r)}};
}

TEST(ReportProtoTest, HashIsStableAndFollowsContent) {
  node::NodeFacts f = node::testing::ProbeFixture("gpu-client-rtxa6000-bar1-256m-peermem-mofed");
  auto a = BuildNodeReport(f, EvaluateFor(f, node::Requirements{}), "gpu-1");
  auto b =
      BuildNodeReport(node::testing::ProbeFixture("gpu-client-rtxa6000-bar1-256m-peermem-mofed"),
                      EvaluateFor(f, node::Requirements{}), "gpu-1");
  EXPECT_EQ(a.content_hash().size(), 64u);
  EXPECT_EQ(a.content_hash(), b.content_hash());
  b.set_probed_unix_millis(12345);  // time is not content
  EXPECT_EQ(ContentHash(b), a.content_hash());
  node::Requirements big;
  big.max_transfer_bytes = 224LL << 20;
  auto c = BuildNodeReport(f, EvaluateFor(f, big), "gpu-1");
  EXPECT_NE(c.content_hash(), a.content_hash());
  ASSERT_EQ(a.gpus_size(), 1);
  EXPECT_EQ(a.gpus(0).bar1_total_bytes(), 256LL << 20);
  EXPECT_EQ(a.gpus(0).path_type(), "PIX");
  EXPECT_EQ(a.host().ib_core_flavor(), "MOFED");
  bool bar1 = false;
  for (const auto& ch : c.checks())
    bar1 = bar1 || (ch.reason() == "Bar1TooSmall" && ch.status() == v1::Check::FAIL);
  EXPECT_TRUE(bar1);
}

// Counters move on every probe of a busy port: they travel apart from the report (its hash, which
// the operator keeps in the RdmaNode status, does not see them), and CountersHash tells the daemon
// whether they moved.
TEST(ReportProtoTest, CountersTravelApartFromTheReport) {
  node::NodeFacts f = node::testing::ProbeFixture("storage-cx6-ib-ipoib-bond0-el8-inbox");
  const auto report = BuildNodeReport(f, EvaluateFor(f, node::Requirements{}), "stg-1");
  const auto a = BuildPortCounters(f);
  ASSERT_EQ(a.ports_size(), 2);
  EXPECT_EQ(a.ports(0).device(), "mlx5_0");
  EXPECT_EQ(a.ports(0).port(), 1);
  ASSERT_EQ(a.ports(0).counters_size(), 10);
  EXPECT_EQ(a.ports(0).counters(0).name(), "port_xmit_data");
  EXPECT_EQ(a.ports(0).counters(0).value(),
            f.rdma_devices[0].ports[0].counters[0].value);  // the kernel's unit: 4 octets
  node::NodeFacts moved = f;
  moved.rdma_devices[1].ports[0].counters[0].value += 1;
  EXPECT_EQ(
      BuildNodeReport(moved, EvaluateFor(moved, node::Requirements{}), "stg-1").content_hash(),
      report.content_hash());
  EXPECT_NE(CountersHash(BuildPortCounters(moved)), CountersHash(a));
  agent::v1::PortCounters later = BuildPortCounters(f);
  later.set_sampled_unix_millis(12345);  // when, not what
  EXPECT_EQ(CountersHash(later), CountersHash(a));
  // The same values on another port are another state.
  node::NodeFacts swapped = f;
  std::swap(swapped.rdma_devices[0].ports[0].counters, swapped.rdma_devices[1].ports[0].counters);
  EXPECT_NE(CountersHash(BuildPortCounters(swapped)), CountersHash(a));
}

TEST(ReportProtoTest, HubRequirementsBecomeOneEvaluationEach) {
  v1::Requirements hub;
  hub.set_gateway(true);
  auto* c = hub.add_clients();
  c->set_profile("ml/train");
  c->set_transport("GPUDirect");
  c->set_memory_registration("PeerMem");
  c->set_max_transfer_bytes(192LL << 20);
  c->set_max_gpu_nic_distance("PHB");
  c->set_gid_index(-1);
  auto reqs = RequirementsFromHub(hub, node::Role::kClient);
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].second.role, node::Role::kGateway);
  EXPECT_EQ(reqs[1].first, "ml/train");
  EXPECT_EQ(reqs[1].second.transport, node::Transport::kGpuDirect);
  EXPECT_EQ(reqs[1].second.registration, node::Registration::kPeerMem);
  EXPECT_EQ(reqs[1].second.max_gpu_nic_distance, node::PathType::kPhb);
  EXPECT_EQ(RequirementsFromHub(v1::Requirements{}, node::Role::kGateway).front().second.role,
            node::Role::kGateway);
}

TEST(RunOptionsTest, RequiresHubCaAndToken) {
  EXPECT_FALSE(ParseRunOptions({"--ca-file", "c", "--token-file", "t"}).ok());
  EXPECT_FALSE(ParseRunOptions({"--hub", "h:1", "--token-file", "t"}).ok());
  auto o = ParseRunOptions({"--hub", "h:1", "--ca-file", "c", "--token-file", "t", "--node-name",
                            "n", "--probe-interval", "500ms", "--role", "gateway"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->daemon.probe_interval, milliseconds(500));
  EXPECT_EQ(o->source.default_role, node::Role::kGateway);
  EXPECT_FALSE(ParseRunOptions({"--hub", "h:1", "--ca-file", "c", "--token-file", "t",
                                "--probe-interval", "soon"})
                   .ok());
}

// The operator's --agent-arg passes flags through as given, often in the --flag=value form.
TEST(RunOptionsTest, AcceptsTheFlagEqualsValueForm) {
  auto o = ParseRunOptions({"--hub=h:1", "--ca-file", "c", "--token-file=t",
                            "--probes-file=/host/p.txt", "--live-probes"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->daemon.hub_address, "h:1");
  EXPECT_EQ(o->daemon.token_file, "t");
  EXPECT_EQ(o->probes_file, "/host/p.txt");
  EXPECT_TRUE(o->live_probes);
  auto bad = ParseRunOptions({"--hub=h:1", "--ca-file=c", "--token-file=t", "--live-probes=yes"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "--live-probes is true or false, not 'yes'");
  auto off = ParseRunOptions({"--hub=h:1", "--ca-file=c", "--token-file=t", "--live-probes=false"});
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_FALSE(off->live_probes);
}

TEST(RunOptionsTest, GpuMemoryIntervalDefaultsToFiveMinutes) {
  auto o = ParseRunOptions({"--hub", "h:1", "--ca-file", "c", "--token-file", "t"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->gpu_memory_interval, std::chrono::minutes(5));
  o = ParseRunOptions(
      {"--hub", "h:1", "--ca-file", "c", "--token-file", "t", "--gpu-memory-interval", "30s"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->gpu_memory_interval, std::chrono::seconds(30));
  auto bad = ParseRunOptions(
      {"--hub", "h:1", "--ca-file", "c", "--token-file", "t", "--gpu-memory-interval", "-1"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not a duration"), std::string::npos);
}

}  // namespace
}  // namespace rdmastack::agent
