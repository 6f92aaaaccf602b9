// The views and their renderings over the fixture cluster, against reviewed golden files
// (tests/golden/; RDMASTACK_UPDATE_GOLDEN=1 rewrites them). docs/plugin.md quotes these files.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cli/kubectl-rdmastack/render_json.h"
#include "cli/kubectl-rdmastack/render_text.h"
#include "cli/kubectl-rdmastack/status_view.h"
#include "cli/kubectl-rdmastack/table.h"
#include "cli/kubectl-rdmastack/tests/fixtures.h"
#include "cli/kubectl-rdmastack/upgrade_view.h"
#include "cli/kubectl-rdmastack/why_view.h"
#include "operator/k8s/json_object.h"
#include "tests/harness/golden.h"

namespace rdmastack::plugin {
namespace {

using testing::FixtureSnapshot;
using testing::kNow;

void ExpectGolden(const std::string& name, const std::string& got) {
  rdmastack::testing::ExpectMatchesGolden("cli/kubectl-rdmastack/tests/golden/" + name, got);
  if (name.ends_with(".json")) {
    EXPECT_TRUE(k8s::JsonObject::Parse(got).ok()) << name << " is not JSON";
    return;
  }
  // Text fits a terminal: no line over 120 columns, no trailing blanks, no colour.
  std::istringstream lines(got);
  std::string line;
  while (std::getline(lines, line)) {
    EXPECT_LE(DisplayWidth(line), 120u) << name << ": " << line;
    EXPECT_TRUE(line.empty() || line.back() != ' ') << name << ": trailing blank: " << line;
    EXPECT_EQ(line.find('\x1b'), std::string::npos) << name;
  }
}

const crd::GatewayPool& Pool(const Snapshot& s, const std::string& name) {
  for (const crd::GatewayPool& p : s.pools) {
    if (p.metadata.name == name) return p;
  }
  ADD_FAILURE() << "no fixture pool " << name;
  return s.pools.front();
}

std::vector<NodeInfo> FixtureNodes() {
  std::vector<NodeInfo> nodes;
  for (const k8s::JsonObject& n : testing::LoadFixtureItems("nodes.json"))
    nodes.push_back(DecodeNode(n));
  return nodes;
}

// ---- status ----

TEST(StatusViewTest, AllNamespaces) {
  const StatusView v = BuildStatusView(FixtureSnapshot(), "", kNow);
  ASSERT_EQ(v.pools.size(), 2u);
  EXPECT_EQ(v.pools[0].name, "kvcache");  // demo before ml
  EXPECT_EQ(v.pools[0].ready.status, "True");
  EXPECT_FALSE(v.pools[0].upgrade);
  ASSERT_TRUE(v.pools[1].upgrade);
  EXPECT_EQ(v.pools[1].upgrade->state, "RollingOut");
  EXPECT_EQ(v.pools[1].upgrade->done, 1);
  EXPECT_EQ(v.pools[1].upgrade->total, 3);
  EXPECT_EQ(v.pools[1].upgrade->failed, 1);
  ExpectGolden("status.txt", RenderStatusText(v));
  ExpectGolden("status.json", RenderStatusJson(v));
}

TEST(StatusViewTest, OneNamespaceDropsTheColumn) {
  Snapshot s = FixtureSnapshot();
  std::erase_if(s.pools, [](const auto& p) { return p.metadata.namespace_ != "ml"; });
  s.profiles.clear();
  ExpectGolden("status-namespace-ml.txt", RenderStatusText(BuildStatusView(s, "ml", kNow)));
}

TEST(StatusViewTest, NodeVerdicts) {
  const StatusView v = BuildStatusView(FixtureSnapshot(), "", kNow);
  auto node = [&v](const std::string& name) {
    for (const NodeAssessment& n : v.nodes) {
      if (n.name == name) return n;
    }
    ADD_FAILURE() << name;
    return NodeAssessment{};
  };
  EXPECT_TRUE(node("stg-node-0").ready);
  EXPECT_EQ(node("stg-node-0").roles, std::vector<std::string>{"gateway"});
  const NodeAssessment down = node("stg-node-2");
  EXPECT_FALSE(down.ready);
  EXPECT_EQ(down.reason, "LinkDown");
  EXPECT_EQ(down.failing, 2u);
  EXPECT_EQ(down.unknown, 1u);
  // Warnings alone do not make a node NotReady.
  EXPECT_TRUE(node("gpu-node-0").ready);
  EXPECT_EQ(node("gpu-node-0").warning, 1u);
  const NodeAssessment stale = node("gpu-node-3");
  EXPECT_FALSE(stale.ready);
  EXPECT_FALSE(stale.agent.reporting);
  EXPECT_EQ(stale.agent.state, "Stale");
  EXPECT_EQ(stale.agent.silent_for, 12 * 60);
  EXPECT_EQ(stale.reason, "NoRdmaDevice");
}

TEST(StatusViewTest, ObjectsWithoutStatus) {
  crd::GatewayPool pool = FixtureSnapshot().pools.front();
  pool.status.reset();
  crd::RdmaNode node;
  node.metadata.name = "new-node";
  node.spec.node_name = "new-node";
  Snapshot s;
  s.pools.push_back(pool);
  s.nodes.push_back(node);
  const StatusView v = BuildStatusView(s, "", kNow);
  EXPECT_EQ(v.pools[0].ready.status, "Unknown");
  EXPECT_EQ(v.pools[0].ready.reason, "NoStatus");
  EXPECT_EQ(v.pools[0].library, "1.2.0.68");  // the spec's
  EXPECT_FALSE(v.nodes[0].ready);
  EXPECT_EQ(v.nodes[0].reason, "NoStatus");
  ExpectGolden("status-no-status.txt", RenderStatusText(v));
}

TEST(StatusViewTest, UndecodableObjectIsAWarningNotAFailure) {
  std::vector<k8s::JsonObject> pools = testing::LoadFixtureItems("gatewaypools.json");
  ASSERT_TRUE(pools[0].SetString({"spec", "upgrade", "strategy"}, "Teleport").ok());
  const Snapshot s = DecodeSnapshot(pools, {}, {});
  EXPECT_EQ(s.pools.size(), 1u);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("skipped GatewayPool ml/archive: "), std::string::npos)
      << s.warnings[0];
}

// ---- why ----

struct WhyCase {
  std::string node;
  NodeExistence existence;
  bool failing;
  std::string golden;  // stem under tests/golden/
};

TEST(WhyViewTest, Nodes) {
  const WhyCase cases[] = {
      // Link down: two Fail checks, an Unknown one, and the pool that lists it.
      {"stg-node-2", NodeExistence::kUnknown, true, "why-stg-node-2"},
      // Stale agent, no RDMA device: ineligible for both profiles.
      {"gpu-node-3", NodeExistence::kUnknown, true, "why-gpu-node-3"},
      // GPU too far from the NIC: excluded by one profile, client not Ready in the other.
      {"gpu-node-2", NodeExistence::kUnknown, true, "why-gpu-node-2"},
      // Healthy with a warning: exit 0.
      {"gpu-node-0", NodeExistence::kUnknown, false, "why-gpu-node-0"},
      // Failed its upgrade while its own checks pass: the pool says so.
      {"stg-node-4", NodeExistence::kUnknown, true, "why-stg-node-4"},
      // No RdmaNode: a typo, and a node nothing selects.
      {"stg-node-9", NodeExistence::kMissing, true, "why-missing"},
      {"cpu-node-7", NodeExistence::kExists, true, "why-no-agent"},
  };
  const Snapshot s = FixtureSnapshot();
  for (const WhyCase& c : cases) {
    SCOPED_TRACE(c.node);
    const WhyView v = BuildWhyView(s, c.node, c.existence, {}, kNow);
    EXPECT_EQ(v.failing, c.failing);
    ExpectGolden(c.golden + ".txt", RenderWhyText(v));
    ExpectGolden(c.golden + ".json", RenderWhyJson(v));
  }
}

TEST(WhyViewTest, MembershipsComeFromPoolsAndProfiles) {
  const WhyView v = BuildWhyView(FixtureSnapshot(), "gpu-node-2", NodeExistence::kExists, {}, kNow);
  ASSERT_EQ(v.memberships.size(), 2u);
  EXPECT_EQ(v.memberships[0].name, "kvcache-gpudirect");
  EXPECT_EQ(v.memberships[0].state, "ineligible");
  EXPECT_EQ(v.memberships[0].reason, "GpuNicTooFar");
  EXPECT_EQ(v.memberships[1].name, "kvcache-hostmem");
  EXPECT_EQ(v.memberships[1].state, "client-not-ready");
  const WhyView missing =
      BuildWhyView(FixtureSnapshot(), "stg-node-9", NodeExistence::kMissing, {}, kNow);
  EXPECT_FALSE(missing.found);
  EXPECT_EQ(missing.close_names,
            (std::vector<std::string>{"stg-node-0", "stg-node-1", "stg-node-2"}));
  // Node names count too: a Node without an RdmaNode may be the one meant.
  const WhyView typo = BuildWhyView(FixtureSnapshot(), "cpu-nod-7", NodeExistence::kMissing,
                                    {"cpu-node-7", "gpu-node-0"}, kNow);
  EXPECT_EQ(typo.close_names.front(), "cpu-node-7");
}

// The fixture's gpu-node-0, whose GPUs a test replaces.
crd::RdmaNode* GpuNode0(Snapshot& s) {
  auto node = std::find_if(s.nodes.begin(), s.nodes.end(),
                           [](const crd::RdmaNode& n) { return n.metadata.name == "gpu-node-0"; });
  return node == s.nodes.end() ? nullptr : &*node;
}

// An eight-GPU server: one line per GPU, each with its own NIC and path, whatever else the node
// says.
TEST(WhyViewTest, EveryGpuHasOneLineWithItsNicAndPath) {
  Snapshot s = FixtureSnapshot();
  crd::RdmaNode* node = GpuNode0(s);
  ASSERT_NE(node, nullptr);
  node->status->gpus.clear();
  const char* nics[] = {"mlx5_0", "mlx5_3", "mlx5_4",  "mlx5_5",
                        "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"};
  for (int i = 0; i < 8; ++i) {
    crd::GpuFacts g;
    g.pci_address = "0000:" + std::string(1, "14569cdd"[i]) + "0:00.0";
    g.model = "NVIDIA H100 80GB HBM3";
    g.nearest_nic = nics[i];
    g.path_type = "PIX";
    node->status->gpus.push_back(g);
  }
  const WhyView v = BuildWhyView(s, "gpu-node-0", NodeExistence::kExists, {}, kNow);
  ASSERT_EQ(v.gpus.size(), 8u);
  EXPECT_EQ(v.gpus[6].nic, "mlx5_10");
  const std::string text = RenderWhyText(v);
  const size_t header = text.find("\nGPU   ");
  ASSERT_NE(header, std::string::npos) << text;
  size_t lines = 0;
  for (size_t at = text.find('\n', header + 1); at != std::string::npos && lines < 20;
       at = text.find('\n', at + 1)) {
    if (text.compare(at + 1, 5, "0000:") != 0) break;
    ++lines;
  }
  EXPECT_EQ(lines, 8u) << text;
  const size_t last = text.find("mlx5_11");
  ASSERT_NE(last, std::string::npos) << text;
  EXPECT_EQ(text.substr(last, text.find('\n', last) - last).find("PIX"), 10u) << text;
}

// A ConnectX-8 tray: the path was measured from the NIC's Data Direct function, and why says so.
TEST(WhyViewTest, ADataDirectPathNamesItsFunction) {
  Snapshot s = FixtureSnapshot();
  crd::RdmaNode* node = GpuNode0(s);
  ASSERT_NE(node, nullptr);
  node->status->gpus.clear();
  crd::GpuFacts g;
  g.pci_address = "0008:04:00.0";
  g.model = "NVIDIA B200";
  g.nearest_nic = "mlx5_0";
  g.path_type = "PIX";
  g.nearest_nic_via = "0008:03:00.0";
  g.iommu = crd::IommuMode::kTranslated;
  node->status->gpus.push_back(g);
  const WhyView v = BuildWhyView(s, "gpu-node-0", NodeExistence::kExists, {}, kNow);
  ASSERT_EQ(v.gpus.size(), 1u);
  EXPECT_EQ(v.gpus[0].note, "via Data Direct 0008:03:00.0; IOMMU translates DMA");
}

// A node that left a profile while workloads there still use its files.
TEST(WhyViewTest, ARetiringNodeSaysWhatHoldsItsFiles) {
  Snapshot s = FixtureSnapshot();
  crd::ClientProfile& profile = s.profiles.front();
  profile.status->retiring_nodes = {{"gpu-node-7", "HeldByPods", {"train-0", "train-1"}}};
  const WhyView v = BuildWhyView(s, "gpu-node-7", NodeExistence::kExists, {}, kNow);
  ASSERT_EQ(v.memberships.size(), 1u);
  EXPECT_EQ(v.memberships[0].state, "retiring");
  EXPECT_FALSE(v.memberships[0].problem);
  EXPECT_EQ(v.memberships[0].message, "files kept, HeldByPods: train-0, train-1");
  // Ineligible and retiring: the reason, and what holds the files.
  profile.status->retiring_nodes = {{"gpu-node-2", "Uninstalling", {}}};
  const WhyView both = BuildWhyView(s, "gpu-node-2", NodeExistence::kExists, {}, kNow);
  ASSERT_FALSE(both.memberships.empty());
  EXPECT_EQ(both.memberships[0].state, "ineligible");
  EXPECT_NE(both.memberships[0].message.find("(files kept, Uninstalling)"), std::string::npos)
      << both.memberships[0].message;
}

// A storage node taken out of service by a cordon: not a problem, and not "serving".
TEST(WhyViewTest, ANodeUnderMaintenanceSaysSoInsteadOfServing) {
  Snapshot s = FixtureSnapshot();
  crd::GatewayPool& pool = s.pools.front();
  ASSERT_FALSE(pool.status->endpoints.empty());
  const std::string node = pool.status->endpoints.front().node;
  pool.status->maintenance_nodes = {{node, "Draining", "cordoned", "2026-09-24T09:00:00Z"}};
  const WhyView v = BuildWhyView(s, node, NodeExistence::kExists, {}, kNow);
  const auto m = std::find_if(v.memberships.begin(), v.memberships.end(),
                              [](const Membership& m) { return m.kind == "GatewayPool"; });
  ASSERT_NE(m, v.memberships.end());
  EXPECT_EQ(m->state, "maintenance");
  EXPECT_FALSE(m->problem);
  EXPECT_EQ(m->reason, "Draining");
  EXPECT_EQ(m->message, "cordoned: its endpoint is terminating, the gateway still serves");
}

// A multi-rail pool's node: serving on its rails, or degraded with the rail that is down.
TEST(WhyViewTest, ARailDownSaysWhichRailAndTheRailsThatServe) {
  Snapshot s = FixtureSnapshot();
  crd::GatewayPool& pool = s.pools.front();
  ASSERT_FALSE(pool.status->endpoints.empty());
  crd::Endpoint& e = pool.status->endpoints.front();
  e.rails = {"rail-a", "rail-b"};
  auto pool_membership = [&](const WhyView& v) {
    const auto m = std::find_if(v.memberships.begin(), v.memberships.end(),
                                [](const Membership& m) { return m.kind == "GatewayPool"; });
    return m == v.memberships.end() ? Membership{} : *m;
  };
  Membership m = pool_membership(BuildWhyView(s, e.node, NodeExistence::kExists, {}, kNow));
  EXPECT_EQ(m.state, "serving");
  EXPECT_NE(m.message.find(", rails rail-a, rail-b"), std::string::npos) << m.message;
  pool.status->degraded_nodes = {
      {e.node, "RailDown",
       "rail rail-b (10.11.0.11): mlx5_1/1 is DOWN (Disabled); serving on rail-a",
       "2026-12-07T12:00:00Z"}};
  m = pool_membership(BuildWhyView(s, e.node, NodeExistence::kExists, {}, kNow));
  EXPECT_EQ(m.state, "degraded");
  EXPECT_FALSE(m.problem);  // it serves: the exit code stays 0
  EXPECT_EQ(m.reason, "RailDown");
  EXPECT_NE(m.message.find("serving on rail-a"), std::string::npos) << m.message;
}

// A profile's pool names its networks: why shows the NIC each GPU takes there, its path and
// rail, and whether it is within the profile's distance; a pool no NIC of the node is on is said
// to be reached through routing.
TEST(WhyViewTest, EachGpusNicOnThePoolsNetworksWithItsPathAndRail) {
  Snapshot s = FixtureSnapshot();
  crd::GatewayPool* kvcache = nullptr;
  for (auto& p : s.pools) {
    if (p.metadata.name == "kvcache") kvcache = &p;
  }
  ASSERT_NE(kvcache, nullptr);
  ASSERT_TRUE(kvcache->status.has_value());
  crd::RdmaNode* node = nullptr;
  for (auto& n : s.nodes) {
    if (n.metadata.name == "gpu-node-0") node = &n;
  }
  ASSERT_NE(node, nullptr);
  ASSERT_EQ(node->status->gpus.size(), 1u);
  // mlx5_0 beside the GPU, and mlx5_1 on the storage network, farther from it.
  for (const char* nic : {"mlx5_0", "mlx5_1"}) {
    crd::RdmaDeviceFacts d;
    d.name = nic;
    crd::RdmaPortFacts port;
    port.number = 1;
    port.state = "ACTIVE";
    d.ports.push_back(port);
    node->status->devices.push_back(d);
  }
  node->status->netdevs.push_back({"ib0", {}, {"10.10.0.21/24"}, "mlx5_0", 1, {}});
  node->status->netdevs.push_back({"ib1", {}, {"10.20.0.21/24"}, "mlx5_1", 1, {}});
  node->status->gpus[0].nic_paths = {{"mlx5_0", "PIX"}, {"mlx5_1", "PHB"}};

  kvcache->status->networks = {{"rail-a", "10.20.0.0/24"}};
  WhyView v = BuildWhyView(s, "gpu-node-0", NodeExistence::kExists, {}, kNow);
  ASSERT_EQ(v.rails.size(), 2u) << "both profiles of the node name the pool";
  const ProfileRailsView& r = v.rails[0];
  EXPECT_EQ(r.profile, "demo/kvcache-gpudirect");
  EXPECT_EQ(r.pool, "demo/kvcache");
  EXPECT_TRUE(r.on_rails);
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_EQ(r.gpus[0].nic, "mlx5_1");
  EXPECT_EQ(r.gpus[0].path_type, "PHB");
  EXPECT_EQ(r.gpus[0].rail, "rail-a");
  EXPECT_FALSE(r.gpus[0].within);
  const std::string text = RenderWhyText(v);
  EXPECT_NE(text.find("ClientProfile demo/kvcache-gpudirect -> GatewayPool demo/kvcache on rail "
                      "rail-a 10.20.0.0/24, the NIC each GPU takes there:"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("mlx5_1"), std::string::npos) << text;

  kvcache->status->networks = {{std::nullopt, "192.168.0.0/16"}};
  v = BuildWhyView(s, "gpu-node-0", NodeExistence::kExists, {}, kNow);
  ASSERT_EQ(v.rails.size(), 2u);
  EXPECT_FALSE(v.rails[0].on_rails);
  EXPECT_EQ(v.rails[0].gpus[0].nic, "mlx5_0");
  EXPECT_NE(RenderWhyText(v).find("reaches the pool through routing"), std::string::npos);

  kvcache->status->networks.clear();
  EXPECT_TRUE(BuildWhyView(s, "gpu-node-0", NodeExistence::kExists, {}, kNow).rails.empty());
}

TEST(WhyViewTest, CappedListsAreNoted) {
  Snapshot s = FixtureSnapshot();
  crd::GatewayPool& pool = s.pools.front();
  pool.status->failing_nodes.clear();
  for (int i = 0; i < 32; ++i)
    pool.status->failing_nodes.push_back({"other-" + std::to_string(i), "LinkDown", {}, {}});
  const WhyView v = BuildWhyView(s, "stg-node-5", NodeExistence::kExists, {}, kNow);
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_NE(v.notes[0].find("lists 32 failing nodes"), std::string::npos);
}

// ---- upgrade ----

TEST(UpgradeViewTest, MidUpgradeWithAFailedNode) {
  const Snapshot s = FixtureSnapshot();
  const UpgradeView v = BuildUpgradeView(Pool(s, "archive"), FixtureNodes(), "", kNow);
  EXPECT_TRUE(v.in_progress);
  EXPECT_EQ(v.done, 1);
  EXPECT_EQ(v.total, 3);
  ASSERT_EQ(v.nodes.size(), 3u);
  EXPECT_EQ(v.nodes[0].node, "stg-node-3");
  EXPECT_EQ(v.nodes[0].phase, "Done");
  EXPECT_EQ(v.nodes[0].from, "1.2.0.68");
  EXPECT_EQ(v.nodes[0].to, "2.0.0.109");
  EXPECT_EQ(v.nodes[1].phase, "Failed");
  EXPECT_EQ(v.nodes[1].reason, "NewGatewayNotReady");
  EXPECT_EQ(v.nodes[2].phase, "Validate");
  EXPECT_EQ(v.nodes[2].in_phase_for, 75);
  // stg-node-4 from its Node's state; stg-node-2 only from the pool's failingNodes.
  ASSERT_EQ(v.failures.size(), 2u);
  EXPECT_EQ(v.failures[0].node, "stg-node-4");
  EXPECT_EQ(v.failures[0].phase, "Failed");
  EXPECT_EQ(v.failures[1].node, "stg-node-2");
  EXPECT_EQ(v.failures[1].phase, "");
  ExpectGolden("upgrade-archive.txt", RenderUpgradeText(v));
  ExpectGolden("upgrade-archive.json", RenderUpgradeJson(v));
}

TEST(UpgradeViewTest, NoUpgradeInProgress) {
  const Snapshot s = FixtureSnapshot();
  const UpgradeView v = BuildUpgradeView(Pool(s, "kvcache"), FixtureNodes(), "", kNow);
  EXPECT_FALSE(v.in_progress);
  ASSERT_EQ(v.nodes.size(), 2u);
  EXPECT_EQ(v.nodes[0].phase, "UpToDate");
  ExpectGolden("upgrade-kvcache.txt", RenderUpgradeText(v));
}

TEST(UpgradeViewTest, WithoutNodesThePoolStatusStillTells) {
  const Snapshot s = FixtureSnapshot();
  const UpgradeView v =
      BuildUpgradeView(Pool(s, "archive"), std::nullopt, "forbidden to list nodes (...)", kNow);
  EXPECT_FALSE(v.nodes_listed);
  EXPECT_TRUE(v.nodes.empty());
  ASSERT_EQ(v.failures.size(), 2u);
  EXPECT_EQ(v.failures[0].node, "stg-node-4");
  ExpectGolden("upgrade-archive-no-nodes.txt", RenderUpgradeText(v));
}

TEST(UpgradeViewTest, PendingAndUnreadableStates) {
  const Snapshot s = FixtureSnapshot();
  std::vector<NodeInfo> nodes = FixtureNodes();
  for (NodeInfo& n : nodes) {
    if (n.name == "stg-node-3") n.annotations.begin()->second = "{not json";
    if (n.name == "stg-node-5") {
      n.annotations.clear();
      n.labels.erase("gwp.rdmastack.io/ml.archive.v2");
    }
  }
  const UpgradeView v = BuildUpgradeView(Pool(s, "archive"), nodes, "", kNow);
  ASSERT_EQ(v.nodes.size(), 3u);
  EXPECT_EQ(v.nodes[0].phase, "Unreadable");
  EXPECT_EQ(v.nodes[2].phase, "Pending");
  EXPECT_EQ(v.nodes[2].from, "1.2.0.68");
  EXPECT_EQ(v.nodes[2].to, "2.0.0.109");
}

// docs/plugin.md shows these outputs; it must show what the plugin prints.
TEST(PluginDocsTest, QuoteTheGoldenFiles) {
  auto slurp = [](const std::string& relative) {
    std::ifstream in(rdmastack::testing::SourcePath(relative));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const std::string docs = slurp("docs/plugin.md");
  for (const char* golden :
       {"status.txt", "why-stg-node-2.txt", "why-gpu-node-3.txt", "why-gpu-node-0.txt",
        "why-missing.txt", "why-no-agent.txt", "upgrade-archive.txt", "upgrade-kvcache.txt",
        "upgrade-archive-no-nodes.txt"}) {
    std::string text = slurp(std::string("cli/kubectl-rdmastack/tests/golden/") + golden);
    ASSERT_FALSE(text.empty()) << golden;
    EXPECT_NE(docs.find(text), std::string::npos)
        << "docs/plugin.md does not quote tests/golden/" << golden << " as it is now";
  }
}

}  // namespace
}  // namespace rdmastack::plugin
