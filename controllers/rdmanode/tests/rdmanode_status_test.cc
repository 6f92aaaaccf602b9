// ComputeRdmaNodeStatus over real agent reports (the agent's probe, checks and report builder run
// over the node fixtures), and its time rules: TTL, transition times, no change on a resent report.
#include "controllers/rdmanode/rdmanode_status.h"

#include <gtest/gtest.h>

#include "base/rfc3339.h"
#include "controllers/rdmanode/testing/fixture_reports.h"
#include "crds/schema/testing/status_expectations.h"
#include "crds/types/json.h"

namespace rdmastack::rdmanode {
namespace {

using std::chrono::seconds;
using testing::ClientRequirements;
using testing::FixtureReport;
using testing::GatewayRequirements;

const Clock::WallTime kT0{seconds(1'764'576'000)};
constexpr Clock::Duration kTtl = seconds(60);

AgentSnapshot Agent(const agent::v1::NodeReport& report, Clock::WallTime at,
                    bool connected = true) {
  AgentSnapshot s;
  s.report = std::make_shared<const agent::v1::NodeReport>(report);
  s.agent_version = report.agent_version();
  s.last_report = at;
  s.last_seen = at;
  s.connected = connected;
  return s;
}

ComputedStatus Compute(std::optional<AgentSnapshot> agent, Clock::WallTime now,
                       const crd::RdmaNodeStatus* previous = nullptr) {
  StatusInputs in;
  in.previous = previous;
  in.agent = std::move(agent);
  in.now = now;
  in.known_since = kT0;
  in.stale_ttl = kTtl;
  in.generation = 1;
  ComputedStatus out = ComputeRdmaNodeStatus(in);
  // Every status a case computes must be one the API server accepts as it is.
  crd::testing::ExpectValidStatus(out.status);
  return out;
}

std::string Brief(const crd::RdmaNodeStatus& s, const char* type) {
  const crd::Condition* c = FindCondition(s, type);
  if (c == nullptr) return "absent";
  return std::string(crd::ToString(c->status)) + "/" + c->reason;
}

struct FixtureCase {
  const char* fixture;
  bool gateway;  // else one client profile
  int64_t max_transfer = 0;
  const char* gateway_capable;
  const char* gpudirect;
  const char* hostmem;
  crd::LinkLayer link;
  const char* message_part;  // must appear in the message of the first non-True verdict
};

TEST(RdmaNodeStatusTest, VerdictConditionsFromRealReports) {
  const FixtureCase cases[] = {
      {"storage-cx6-ib-ipoib-bond0-el8-inbox", true, 0, "True/Verified", "Unknown/NotEvaluated",
       "Unknown/NotEvaluated", crd::LinkLayer::kInfiniBand, "a ClientProfile"},
      {"gateway-roce-v2-gid3-doca", true, 0, "True/Verified", "Unknown/NotEvaluated",
       "Unknown/NotEvaluated", crd::LinkLayer::kEthernet, "only a ClientProfile"},
      {"storage-cx6-ib-port-down", true, 0, "False/LinkDown", "Unknown/NotEvaluated",
       "Unknown/NotEvaluated", crd::LinkLayer::kNone, "rdma.port-state Fail: "},
      {"gpu-client-cx4-vf-vm", false, 0, "Unknown/NotEvaluated", "False/UnsupportedNic",
       "False/UnsupportedNic", crd::LinkLayer::kInfiniBand, "a GatewayPool"},
      {"gpu-client-rtxa6000-224mi-bar1-too-small", false, 224 << 20, "Unknown/NotEvaluated",
       "False/Bar1TooSmall", "True/Verified", crd::LinkLayer::kInfiniBand,
       "ClientProfile ml/train: gpu.bar1 Fail: "},
      {"gpu-client-h100-dmabuf-open-inbox", false, 0, "Unknown/NotEvaluated", "True/Verified",
       "True/Verified", crd::LinkLayer::kInfiniBand, "a GatewayPool"},
      {"node-without-rdma", false, 0, "Unknown/NotEvaluated", "False/NoRdmaDevice",
       "False/NoRdmaDevice", crd::LinkLayer::kNone, "a GatewayPool"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.fixture);
    const auto report =
        FixtureReport(c.fixture, c.gateway ? GatewayRequirements()
                                           : ClientRequirements("ml/train", c.max_transfer));
    const auto out = Compute(Agent(report, kT0), kT0 + seconds(1));
    const crd::RdmaNodeStatus& s = out.status;
    EXPECT_EQ(Brief(s, kReporting), "True/Reporting");
    EXPECT_EQ(Brief(s, kGatewayCapable), c.gateway_capable);
    EXPECT_EQ(Brief(s, kGPUDirectCapable), c.gpudirect);
    EXPECT_EQ(Brief(s, kHostMemoryCapable), c.hostmem);
    EXPECT_EQ(s.link_layer, c.link);
    std::string messages;
    for (const auto& cond : s.conditions) messages += cond.message + "\n";
    EXPECT_NE(messages.find(c.message_part), std::string::npos) << messages;
    ASSERT_TRUE(s.agent);
    EXPECT_EQ(s.agent->state, crd::AgentState::kConnected);
    EXPECT_EQ(s.agent->report_hash, report.content_hash());
    EXPECT_EQ(s.checks.size(), static_cast<size_t>(report.checks_size()));
    // What the API server stores and the informer hands back compares equal: no rewrite loop.
    crd::RdmaNode node;
    node.metadata.name = "node-0";
    node.spec.node_name = "node-0";
    node.status = s;
    auto round = crd::ParseResource<crd::RdmaNode>(crd::SerializeResource(node));
    ASSERT_TRUE(round.ok()) << round.status().ToString();
    EXPECT_EQ(round->status, node.status);
  }
}

TEST(RdmaNodeStatusTest, GpuDirectVerdictNamesTheRegistrationPath) {
  const auto out = Compute(
      Agent(FixtureReport("gpu-client-h100-dmabuf-open-inbox", ClientRequirements("ml/a")), kT0),
      kT0);
  ASSERT_TRUE(out.status.verdicts && out.status.verdicts->gpu_direct);
  EXPECT_EQ(out.status.verdicts->gpu_direct->capable, crd::Capability::kYes);
  EXPECT_EQ(out.status.verdicts->gpu_direct->via, "DMABuf");
  EXPECT_NE(FindCondition(out.status, kGPUDirectCapable)
                ->message.find("ClientProfile ml/a: capable via DMABuf"),
            std::string::npos);
}

TEST(RdmaNodeStatusTest, ResentReportChangesNothing) {
  const auto report = FixtureReport("storage-cx6-ib-ipoib-bond0-el8-inbox", GatewayRequirements());
  const auto first = Compute(Agent(report, kT0), kT0);
  // The agent reconnects 30 s later and sends the same facts again.
  const auto again = Compute(Agent(report, kT0 + seconds(30)), kT0 + seconds(31), &first.status);
  EXPECT_EQ(again.status, first.status);
  EXPECT_EQ(again.status.agent->last_report_time, FormatRfc3339(kT0));
}

TEST(RdmaNodeStatusTest, ChangedReportKeepsTransitionTimesOfUnchangedConditions) {
  const auto up = Compute(
      Agent(FixtureReport("storage-cx6-ib-ipoib-bond0-el8-inbox", GatewayRequirements()), kT0),
      kT0);
  const Clock::WallTime later = kT0 + seconds(40);
  const auto down =
      Compute(Agent(FixtureReport("storage-cx6-ib-port-down", GatewayRequirements()), later), later,
              &up.status);
  EXPECT_EQ(Brief(down.status, kGatewayCapable), "False/LinkDown");
  EXPECT_EQ(FindCondition(down.status, kGatewayCapable)->last_transition_time,
            FormatRfc3339(later));
  EXPECT_EQ(FindCondition(down.status, kReporting)->last_transition_time, FormatRfc3339(kT0));
  EXPECT_EQ(down.status.agent->last_report_time, FormatRfc3339(later));
}

TEST(RdmaNodeStatusTest, SilentPastTheTtlIsStaleOrDisconnected) {
  const auto report = FixtureReport("gateway-roce-v2-gid3-doca", GatewayRequirements());
  const auto fresh = Compute(Agent(report, kT0), kT0 + seconds(10));
  ASSERT_TRUE(fresh.recheck_at);
  EXPECT_EQ(*fresh.recheck_at, kT0 + kTtl + seconds(1));
  // Exactly at the TTL the node still counts as reporting.
  EXPECT_EQ(Brief(Compute(Agent(report, kT0), kT0 + kTtl, &fresh.status).status, kReporting),
            "True/Reporting");

  const Clock::WallTime late = kT0 + kTtl + seconds(2);
  const auto stale = Compute(Agent(report, kT0, /*connected=*/true), late, &fresh.status);
  EXPECT_EQ(Brief(stale.status, kReporting), "False/Stale");
  EXPECT_EQ(stale.status.agent->state, crd::AgentState::kStale);
  EXPECT_EQ(FindCondition(stale.status, kReporting)->last_transition_time, FormatRfc3339(late));
  EXPECT_FALSE(stale.recheck_at);
  // Facts and verdicts stay as last reported.
  EXPECT_EQ(Brief(stale.status, kGatewayCapable), "True/Verified");
  EXPECT_EQ(stale.status.devices, fresh.status.devices);

  const auto gone = Compute(Agent(report, kT0, /*connected=*/false), late, &fresh.status);
  EXPECT_EQ(Brief(gone.status, kReporting), "False/AgentDisconnected");
  EXPECT_NE(FindCondition(gone.status, kReporting)->message.find("not connected"),
            std::string::npos);
}

TEST(RdmaNodeStatusTest, ConnectedWithoutReportIsNeverReported) {
  AgentSnapshot s;
  s.connected = true;
  s.agent_version = "0.1.0";
  s.last_seen = kT0;
  const auto out = Compute(s, kT0);
  EXPECT_EQ(Brief(out.status, kReporting), "False/NeverReported");
  EXPECT_EQ(FindCondition(out.status, kGatewayCapable), nullptr);
  EXPECT_FALSE(out.status.verdicts);
}

// After an operator restart nothing is in memory: what the last process wrote stands until the
// TTL (counted from the restart) runs out, and a reconnecting agent's resent report is no change.
TEST(RdmaNodeStatusTest, RestartKeepsTheWrittenStatusUntilTheTtl) {
  const auto report = FixtureReport("storage-cx6-ib-ipoib-bond0-el8-inbox", GatewayRequirements());
  const Clock::WallTime before = kT0 - seconds(600);
  const auto written = Compute(Agent(report, before), before);
  const auto kept = Compute(std::nullopt, kT0 + seconds(5), &written.status);
  EXPECT_EQ(kept.status, written.status);
  AgentSnapshot connected_only;
  connected_only.connected = true;
  connected_only.last_seen = kT0 + seconds(6);
  EXPECT_EQ(Compute(connected_only, kT0 + seconds(6), &written.status).status, written.status);
  EXPECT_EQ(Compute(Agent(report, kT0 + seconds(7)), kT0 + seconds(7), &written.status).status,
            written.status);
  const auto expired = Compute(std::nullopt, kT0 + kTtl + seconds(1), &written.status);
  EXPECT_EQ(Brief(expired.status, kReporting), "False/AgentDisconnected");
  EXPECT_EQ(expired.status.agent->state, crd::AgentState::kStale);
}

// An HGX H100 (8 GPUs, 8 compute and 4 storage RDMA ports) fits the schema as reported: every
// device, GPU and check message arrives whole, none clipped (Compute checks the schema).
TEST(RdmaNodeStatusTest, EightGpuServerFitsUnclipped) {
  const auto report =
      FixtureReport("gpu-client-hgx-h100-8gpu-8nic", ClientRequirements("ml/train"));
  const auto out = Compute(Agent(report, kT0), kT0 + seconds(1));
  const crd::RdmaNodeStatus& s = out.status;
  EXPECT_EQ(Brief(s, kGPUDirectCapable), "True/Verified");
  EXPECT_EQ(s.devices.size(), 12u);
  EXPECT_EQ(s.gpus.size(), 8u);
  ASSERT_EQ(s.checks.size(), static_cast<size_t>(report.checks_size()));
  for (int i = 0; i < report.checks_size(); ++i) {
    ASSERT_TRUE(s.checks[i].message);
    EXPECT_EQ(*s.checks[i].message, report.checks(i).message()) << report.checks(i).id();
  }
}

TEST(RdmaNodeStatusTest, MalformedReportIsClippedToTheSchema) {
  agent::v1::NodeReport r;
  r.set_content_hash(std::string(64, 'a'));
  for (int i = 0; i < 40; ++i) {
    auto* d = r.add_devices();
    d->set_name(i % 2 == 0 ? "mlx5_dup" : "mlx5_" + std::to_string(i));
  }
  auto* c = r.add_checks();
  c->set_id("x");
  c->set_status(agent::v1::Check::FAIL);
  c->set_reason("not a reason!");
  c->set_message(std::string(5000, 'm'));
  auto* v = r.add_verdicts();
  v->set_capability("Gateway");
  v->set_reason("not a reason!");
  const auto out = Compute(Agent(r, kT0), kT0);
  EXPECT_EQ(out.status.devices.size(), 21u);  // one mlx5_dup and 20 others, under maxItems 32
  EXPECT_EQ(out.status.checks[0].message->size(), 1024u);
  EXPECT_EQ(Brief(out.status, kGatewayCapable), "False/CheckFailed");
}

// A GPU's paths to the NICs: only to a reported device, each once, one of NCCL's four types, at
// most 32; anything else is dropped, not clipped into another name.
TEST(RdmaNodeStatusTest, GpuNicPathsNameReportedDevicesOnly) {
  agent::v1::NodeReport r;
  r.set_content_hash(std::string(64, 'c'));
  for (int i = 0; i < 40; ++i) r.add_devices()->set_name("mlx5_" + std::to_string(i));
  auto* g = r.add_gpus();
  g->set_pci_address("0000:18:00.0");
  auto path = [&](const std::string& nic, const std::string& type) {
    auto* p = g->add_nic_paths();
    p->set_nic(nic);
    p->set_path_type(type);
  };
  path("mlx5_0", "PIX");
  path("mlx5_0", "SYS");                         // again
  path("mlx5_999", "PXB");                       // not a reported device
  path("mlx5_1" + std::string(80, 'x'), "PXB");  // clipped, it would be mlx5_1...
  path("mlx5_2", "pix");
  path("mlx5_3", "NV12");
  path("mlx5_4", "PHB\n");
  for (int i = 5; i < 40; ++i) path("mlx5_" + std::to_string(i), "SYS");
  const auto out = Compute(Agent(r, kT0), kT0);
  ASSERT_EQ(out.status.gpus.size(), 1u);
  const auto& paths = out.status.gpus[0].nic_paths;
  // mlx5_0 and mlx5_5..31: the status keeps 32 devices, so mlx5_32..39 are not reported ones.
  ASSERT_EQ(paths.size(), 28u);
  EXPECT_EQ(paths[0], (crd::GpuNicPathFacts{"mlx5_0", "PIX"}));
  EXPECT_EQ(paths.back(), (crd::GpuNicPathFacts{"mlx5_31", "SYS"}));
  EXPECT_EQ(paths[1], (crd::GpuNicPathFacts{"mlx5_5", "SYS"}));
  crd::testing::ExpectValidStatus(out.status);
}

// The agent's ACS answer is believed only in the shape the schema allows: PCI addresses, at most
// eight, no duplicates, bridges only with "yes"; anything else is dropped, not clipped.
TEST(RdmaNodeStatusTest, HostileAcsBridgesAreDroppedNotClipped) {
  agent::v1::NodeReport r;
  r.set_content_hash(std::string(64, 'b'));
  auto* g = r.add_gpus();
  g->set_pci_address("0000:18:00.0");
  g->set_acs_redirect("yes");
  for (const char* bdf : {"0000:17:01.0", "0000:17:01.0", "../../../etc/passwd", "0000:17:01.0\n",
                          "0000:zz:01.0", "0000:17:01.0 --all", "", "00000:17:01.0"}) {
    g->add_acs_redirect_bridges(bdf);
  }
  for (int i = 0; i < 20; ++i) {
    char bdf[16];
    std::snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", 0x20 + i);
    g->add_acs_redirect_bridges(bdf);
  }
  auto out = Compute(Agent(r, kT0), kT0);
  ASSERT_EQ(out.status.gpus.size(), 1u);
  const crd::GpuFacts& f = out.status.gpus[0];
  EXPECT_EQ(f.acs_redirect, true);
  ASSERT_EQ(f.acs_redirect_bridges.size(), 8u);
  EXPECT_EQ(f.acs_redirect_bridges[0], "0000:17:01.0");
  EXPECT_EQ(f.acs_redirect_bridges[1], "0000:20:00.0");

  // "no" with bridges named, or an answer that is neither: no bridges, and "no" or unknown.
  g->set_acs_redirect("no");
  out = Compute(Agent(r, kT0), kT0);
  EXPECT_EQ(out.status.gpus[0].acs_redirect, false);
  EXPECT_TRUE(out.status.gpus[0].acs_redirect_bridges.empty());
  g->set_acs_redirect("YES; rm -rf");
  out = Compute(Agent(r, kT0), kT0);
  EXPECT_FALSE(out.status.gpus[0].acs_redirect.has_value());
  EXPECT_TRUE(out.status.gpus[0].acs_redirect_bridges.empty());

  // A Data Direct function: a PCI address or nothing.
  g->set_nearest_nic_via("0008:03:00.0");
  EXPECT_EQ(Compute(Agent(r, kT0), kT0).status.gpus[0].nearest_nic_via, "0008:03:00.0");
  for (const char* hostile : {"0008:03:00.0 --all", "../../sys", "", "0008:03:00.0\n"}) {
    g->set_nearest_nic_via(hostile);
    EXPECT_FALSE(Compute(Agent(r, kT0), kT0).status.gpus[0].nearest_nic_via.has_value()) << hostile;
  }

  // The IOMMU mode, in the CRD's words; only the agent's three words are believed.
  g->set_iommu("translated");
  EXPECT_EQ(Compute(Agent(r, kT0), kT0).status.gpus[0].iommu, crd::IommuMode::kTranslated);
  g->set_iommu("Translated");
  EXPECT_FALSE(Compute(Agent(r, kT0), kT0).status.gpus[0].iommu.has_value());
}

// A PCIe root reaches the status (and the DRA slices made from it) only in the form sysfs names
// a host bridge; anything else is dropped, not clipped into another root.
TEST(RdmaNodeStatusTest, PcieRootsAreBelievedOnlyInAHostBridgesForm) {
  agent::v1::NodeReport r;
  r.set_content_hash(std::string(64, 'c'));
  auto* g = r.add_gpus();
  g->set_pci_address("0000:18:00.0");
  auto* d = r.add_devices();
  d->set_name("mlx5_0");
  g->set_pcie_root("pci0000:17");
  d->set_pcie_root("pci10000:e0");
  auto out = Compute(Agent(r, kT0), kT0);
  EXPECT_EQ(out.status.gpus[0].pcie_root, "pci0000:17");
  EXPECT_EQ(out.status.devices[0].pcie_root, "pci10000:e0");
  crd::testing::ExpectValidStatus(out.status);
  for (const char* hostile :
       {"pci0000:17 ", "PCI0000:17", "pci0000:17/../x", "pci0000:1", "pci000000000:17",
        "pci0000:17\n", "", "0000:17:00.0", "pci0000:zz"}) {
    g->set_pcie_root(hostile);
    d->set_pcie_root(hostile);
    out = Compute(Agent(r, kT0), kT0);
    EXPECT_FALSE(out.status.gpus[0].pcie_root.has_value()) << hostile;
    EXPECT_FALSE(out.status.devices[0].pcie_root.has_value()) << hostile;
  }
}

}  // namespace
}  // namespace rdmastack::rdmanode
