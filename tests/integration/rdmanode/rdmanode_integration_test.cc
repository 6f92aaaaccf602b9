// RdmaNodes and node labels from real agent reports (the agent's probe, checks and report builder
// over each simulated node's own fixture), written to the real API server; writes counted from the
// API server's audit log.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "controllers/rdmanode/node_labels.h"
#include "controllers/rdmanode/testing/fixture_reports.h"
#include "tests/harness/audit_log.h"
#include "tests/integration/rdmanode/node_controllers_run.h"

namespace rdmastack::rdmanode::integration {
namespace {

using namespace std::chrono_literals;
using ::rdmastack::testing::ClusterEnv;
using ::rdmastack::testing::Eventually;
using ::rdmastack::testing::ReadAuditedWrites;
using ::rdmastack::testing::WritesByAgent;
using testing::ClientRequirements;
using testing::FixtureReport;
using testing::GatewayRequirements;

// What each fixture must come out as: the reasons of GatewayCapable, GPUDirectCapable,
// HostMemoryCapable (the printer columns) and the labels.
struct Expected {
  const char* gateway;
  const char* gpudirect;
  const char* hostmem;
  std::map<std::string, std::string> labels;
};
const std::map<std::string, Expected>& ExpectedByFixture() {
  static const std::map<std::string, Expected> table = {
      {"storage-cx6-ib-ipoib-bond0-el8-inbox",
       {"Verified",
        "NotEvaluated",
        "NotEvaluated",
        {{kGatewayCapableLabel, "true"}, {kLinkLayerLabel, "InfiniBand"}}}},
      {"gateway-roce-v2-gid3-doca",
       {"Verified",
        "NotEvaluated",
        "NotEvaluated",
        {{kGatewayCapableLabel, "true"}, {kLinkLayerLabel, "Ethernet"}}}},
      {"storage-cx6-ib-port-down",
       {"LinkDown",
        "NotEvaluated",
        "NotEvaluated",
        {{kGatewayCapableLabel, "false"}, {kLinkLayerLabel, "None"}}}},
      {"gpu-client-rtxa6000-bar1-256m-peermem-mofed",
       {"NotEvaluated",
        "Verified",
        "Verified",
        {{kGPUDirectLabel, "true"}, {kHostMemLabel, "true"}, {kLinkLayerLabel, "InfiniBand"}}}},
      {"gpu-client-h100-dmabuf-open-inbox",
       {"NotEvaluated",
        "Verified",
        "Verified",
        {{kGPUDirectLabel, "true"}, {kHostMemLabel, "true"}, {kLinkLayerLabel, "InfiniBand"}}}},
      {"gpu-client-cross-socket-sys",
       {"NotEvaluated",
        "GpuNicTooFar",
        "Verified",
        {{kGPUDirectLabel, "false"}, {kHostMemLabel, "true"}, {kLinkLayerLabel, "InfiniBand"}}}},
      {"node-without-rdma",
       {"NotEvaluated",
        "NoRdmaDevice",
        "NoRdmaDevice",
        {{kGPUDirectLabel, "false"}, {kHostMemLabel, "false"}, {kLinkLayerLabel, "None"}}}},
  };
  return table;
}

struct SimNode {
  std::string name;
  std::string fixture;
  bool storage;
};

class RdmaNodeIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = ::rdmastack::testing::GetClusterEnv();
    if (env_ == nullptr) return;
    RequireCrds(*env_);
    auto r = env_->Kubectl(
        {"get", "nodes", "-o",
         R"(jsonpath={range .items[*]}{.metadata.name} {.metadata.annotations.sim\.rdmastack\.io/fixture}{"\n"}{end})"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(r.out);
    std::string name, fixture;
    std::set<std::string> covered;
    while (lines >> name >> fixture) {
      // One node per fixture (the test.sh cluster has several IPoIB storage nodes).
      if (ExpectedByFixture().count(fixture) == 0 || covered.count(fixture) != 0) continue;
      nodes_.push_back({name, fixture, IsStorage(fixture)});
      covered.insert(fixture);
    }
    // Fixtures no simulated node has get a plain Node of their own (the reports come from the
    // fixture trees in the source either way).
    for (const auto& [fixture, expected] : ExpectedByFixture()) {
      if (covered.count(fixture) != 0) continue;
      const std::string node = ::rdmastack::testing::UniqueName("rnode-it");
      auto created = env_->Kubectl({"apply", "-f", "-"},
                                   "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + node + "\n");
      ASSERT_EQ(created.exit_code, 0) << created.err;
      created_nodes_.push_back(node);
      nodes_.push_back({node, fixture, IsStorage(fixture)});
    }
    Clean();
  }
  void TearDown() override {
    if (env_ == nullptr) return;
    Clean();
    // The garbage collector removes their RdmaNodes.
    for (const auto& n : created_nodes_) (void)env_->Kubectl({"delete", "node", n, "--wait=false"});
  }

  static bool IsStorage(const std::string& fixture) {
    return fixture.rfind("storage-", 0) == 0 || fixture.rfind("gateway-", 0) == 0;
  }

  // No RdmaNodes and none of our labels on the simulated nodes.
  void Clean() {
    std::vector<std::string> del{"delete", "rdmanode", "--ignore-not-found", "--wait=true"};
    for (const auto& n : nodes_) del.push_back(n.name);
    (void)env_->Kubectl(del);
    for (const auto& n : nodes_) {
      std::vector<std::string> args{"label", "node", n.name};
      for (auto key : kOwnedNodeLabels) args.push_back(std::string(key) + "-");
      (void)env_->Kubectl(args);
    }
  }

  agent::v1::NodeReport ReportFor(const SimNode& n, const std::string& fixture = "") const {
    return FixtureReport(fixture.empty() ? n.fixture : fixture,
                         n.storage ? GatewayRequirements() : ClientRequirements("ml/train"),
                         n.name);
  }

  static agenthub::AgentIdentity Id(const std::string& node) {
    agenthub::AgentIdentity id;
    id.node_name = node;
    id.agent_version = "0.1.0";
    return id;
  }

  void Report(NodeControllersRun& run, const SimNode& n, const std::string& fixture = "") {
    run.agents().OnAgentConnected(Id(n.name));
    run.agents().OnReport(Id(n.name), ReportFor(n, fixture));
  }

  std::string Get(const std::string& kind, const std::string& name, const std::string& path) const {
    auto r = env_->Kubectl({"get", kind, name, "-o", "jsonpath=" + path});
    return r.exit_code == 0 ? r.out : "";
  }

  std::string Reason(const std::string& node, const std::string& type) const {
    return Get("rdmanode", node, "{.status.conditions[?(@.type==\"" + type + "\")].reason}");
  }

  std::map<std::string, std::string> OwnedLabels(const std::string& node) const {
    std::map<std::string, std::string> out;
    for (auto key : kOwnedNodeLabels) {
      std::string escaped;
      for (char c : key)
        escaped += (c == '.' || c == '/') ? std::string("\\") + c : std::string(1, c);
      auto r =
          env_->Kubectl({"get", "node", node, "-o", "jsonpath={.metadata.labels." + escaped + "}"});
      if (r.exit_code == 0 && !r.out.empty()) out[std::string(key)] = r.out;
    }
    return out;
  }

  bool Settled(const SimNode& n) const {
    const Expected& e = ExpectedByFixture().at(n.fixture);
    return Reason(n.name, "Reporting") == "Reporting" &&
           Reason(n.name, "GatewayCapable") == e.gateway &&
           Reason(n.name, "GPUDirectCapable") == e.gpudirect &&
           Reason(n.name, "HostMemoryCapable") == e.hostmem && OwnedLabels(n.name) == e.labels;
  }

  // Writes through our user agent to `resource`, by object name.
  std::map<std::string, int> Writes(const NodeControllersRun& run,
                                    const std::string& resource) const {
    std::map<std::string, int> out;
    for (const auto& w : WritesByAgent(ReadAuditedWrites(), run.user_agent())) {
      if (w.resource == resource && w.code < 300) ++out[w.name];
    }
    return out;
  }

  const ClusterEnv* env_ = nullptr;
  std::vector<SimNode> nodes_;
  std::vector<std::string> created_nodes_;
};

TEST_F(RdmaNodeIntegrationTest, ReportsBecomeRdmaNodesLabelsAndOnlyChangesAreWritten) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  ASSERT_EQ(nodes_.size(), ExpectedByFixture().size());
  NodeControllersRun run(*env, "rdmanode-it", 60s, {});
  // Several nodes' passes run at once (a first start's thousands of reports drain by API
  // latency); the writes below show that concurrency writes each object once.
  const std::string metrics = run.RenderMetrics();
  for (const char* controller : {"rdmanode", "nodelabels"}) {
    EXPECT_NE(
        metrics.find(std::string("controller_runtime_max_concurrent_reconciles{controller=\"") +
                     controller + "\"} 4"),
        std::string::npos)
        << controller;
  }
  for (const auto& n : nodes_) Report(run, n);
  for (const auto& n : nodes_) {
    EXPECT_TRUE(Eventually([&] { return Settled(n); }, 60s))
        << n.name << " (" << n.fixture << "): " << Get("rdmanode", n.name, "{.status.conditions}")
        << " labels " << OwnedLabels(n.name).size();
    // Owned by its Node, so that the garbage collector removes it with the Node.
    EXPECT_EQ(Get("rdmanode", n.name, "{.metadata.ownerReferences[0].kind}"), "Node");
    EXPECT_EQ(Get("rdmanode", n.name, "{.metadata.ownerReferences[0].uid}"),
              Get("node", n.name, "{.metadata.uid}"));
  }
  auto r = env->Kubectl({"get", "rnode"});
  std::cout << r.out;
  for (const char* want :
       {"GATEWAY", "GPUDIRECT", "HOSTMEM", "REPORTING", "LinkDown", "GpuNicTooFar"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want;

  // Each RdmaNode took one create and one status write; each Node one label patch.
  std::this_thread::sleep_for(2s);
  const auto rnode_writes = Writes(run, "rdmanodes");
  const auto node_writes = Writes(run, "nodes");
  for (const auto& n : nodes_) {
    EXPECT_EQ(rnode_writes.count(n.name) ? rnode_writes.at(n.name) : 0, 2) << n.name;
    EXPECT_EQ(node_writes.count(n.name) ? node_writes.at(n.name) : 0, 1) << n.name;
  }

  // The agents reconnect and resend the same reports: nothing is written.
  for (const auto& n : nodes_) {
    run.agents().OnAgentDisconnected(Id(n.name));
    Report(run, n);
  }
  std::this_thread::sleep_for(4s);
  EXPECT_EQ(Writes(run, "rdmanodes"), rnode_writes);
  EXPECT_EQ(Writes(run, "nodes"), node_writes);

  // One node's port goes down: one write to its RdmaNode, one label patch, nothing else.
  const SimNode* changed = nullptr;
  for (const auto& n : nodes_) {
    if (n.fixture == "storage-cx6-ib-ipoib-bond0-el8-inbox") changed = &n;
  }
  ASSERT_NE(changed, nullptr);
  Report(run, *changed, "storage-cx6-ib-port-down");
  EXPECT_TRUE(
      Eventually([&] { return Reason(changed->name, "GatewayCapable") == "LinkDown"; }, 30s));
  EXPECT_TRUE(Eventually(
      [&] { return OwnedLabels(changed->name).at(kGatewayCapableLabel) == "false"; }, 30s));
  std::this_thread::sleep_for(3s);
  auto after = Writes(run, "rdmanodes");
  auto after_nodes = Writes(run, "nodes");
  for (const auto& n : nodes_) {
    const int extra = n.name == changed->name ? 1 : 0;
    EXPECT_EQ(after[n.name], rnode_writes.at(n.name) + extra) << n.name;
    EXPECT_EQ(after_nodes[n.name], node_writes.at(n.name) + extra) << n.name;
  }
  EXPECT_NE(
      Get("rdmanode", changed->name, "{.status.conditions[?(@.type==\"GatewayCapable\")].message}")
          .find("rdma.port-state Fail"),
      std::string::npos);
}

TEST_F(RdmaNodeIntegrationTest, SilentAgentGoesStaleAndLosesItsLabelsAfterTheGracePeriod) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  NodeControllerOptions options;
  options.label_grace = 4s;
  NodeControllersRun run(*env, "rdmanode-stale", 3s, options);
  const SimNode& n = nodes_.front();
  Report(run, n);
  ASSERT_TRUE(Eventually([&] { return Settled(n); }, 30s));
  // No heartbeat: past the 3 s TTL the node is Stale, its labels stay for the grace period...
  ASSERT_TRUE(Eventually([&] { return Reason(n.name, "Reporting") == "Stale"; }, 20s))
      << Get("rdmanode", n.name, "{.status}");
  EXPECT_EQ(Get("rdmanode", n.name, "{.status.agent.state}"), "Stale");
  EXPECT_FALSE(OwnedLabels(n.name).empty());
  // ... and then they go.
  EXPECT_TRUE(Eventually([&] { return OwnedLabels(n.name).empty(); }, 20s));
  // The facts stay, marked stale; a report brings everything back.
  EXPECT_EQ(Reason(n.name, "GatewayCapable"), ExpectedByFixture().at(n.fixture).gateway);
  Report(run, n);
  EXPECT_TRUE(Eventually([&] { return Settled(n); }, 20s));
}

TEST_F(RdmaNodeIntegrationTest, DeletedNodeTakesItsRdmaNodeWithIt) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const std::string name = ::rdmastack::testing::UniqueName("rnode-gc");
  ASSERT_EQ(env->Kubectl({"apply", "-f", "-"},
                         "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name + "\n")
                .exit_code,
            0);
  NodeControllersRun run(*env, "rdmanode-gc", 60s, {});
  SimNode n{name, "gateway-roce-v2-gid3-doca", true};
  // The Node must be in the controllers' cache before its agent speaks.
  ASSERT_TRUE(Eventually([&] { return !Get("node", name, "{.metadata.uid}").empty(); }, 10s));
  std::this_thread::sleep_for(1s);
  Report(run, n);
  ASSERT_TRUE(Eventually([&] { return Reason(name, "GatewayCapable") == "Verified"; }, 30s));
  ASSERT_EQ(env->Kubectl({"delete", "node", name}).exit_code, 0);
  // kube-controller-manager's garbage collector removes the dependent.
  EXPECT_TRUE(Eventually(
      [&] {
        auto r = env->Kubectl({"get", "rdmanode", name, "--ignore-not-found", "-o", "name"});
        return r.exit_code == 0 && r.out.empty();
      },
      90s));
  // And the controllers forget the node's agent state.
  EXPECT_TRUE(Eventually([&] { return !run.agents().Get(name).has_value(); }, 10s));
}

}  // namespace
}  // namespace rdmastack::rdmanode::integration
