// The agent image's entrypoint run as its DaemonSet's pod runs it: the pod template the operator
// renders (controllers/rdmanode/tests/golden/agent-daemonset.json, kept equal to the renderer's
// output by its unit test) with its image, user, privileged read-only root, host root at /host and
// projected token, on a simulated node. Only what makes it a one-shot changes: `check` instead of
// `run` (same --root and --live-probes), restartPolicy Never, the node and the harness label. So
// the live probes (libibverbs and its providers, NVML looked for below /host) run inside the image,
// which neither `--version` nor the harness's recorded probes ever do.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "base/version.h"
#include "controllers/rdmanode/agent_daemonset.h"
#include "operator/k8s/json_object.h"
#include "tests/harness/cluster_env.h"
#include "tests/integration/sim/sim_cluster.h"

namespace rdmastack::rdmanode::integration {
namespace {

using namespace std::chrono_literals;
using ::rdmastack::testing::Eventually;
using ::rdmastack::testing::SourcePath;
using ::rdmastack::testing::TestNamespace;

k8s::JsonObject AgentPodTemplate() {
  std::ifstream in(SourcePath("controllers/rdmanode/tests/golden/agent-daemonset.json"));
  std::stringstream text;
  text << in.rdbuf();
  StatusOr<k8s::JsonObject> ds = k8s::JsonObject::Parse(text.str());
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  return ds.ok() ? ds->Get({"spec", "template"}).value_or(k8s::JsonObject()) : k8s::JsonObject();
}

TEST(AgentImagePodTest, CheckRunsItsLiveProbesInsideTheImageInTheDaemonSetsPodShape) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const auto sim_nodes = ::rdmastack::testing::SimulatedNodes();
  if (sim_nodes.empty()) GTEST_SKIP() << "no simulated nodes (RDMASTACK_SIM_NODES)";
  TestNamespace ns(*env, "agent-image");
  const auto& node = sim_nodes.begin()->second;

  // What the chart gives the agent: its ServiceAccount; the hub's CA ConfigMap (any PEM will do:
  // `check` never dials the hub, but the volume must resolve as it does for `run`).
  ::rdmastack::testing::ApplyChartAgentServiceAccount(ns);
  if (HasFatalFailure()) return;
  ASSERT_EQ(env->Kubectl({"create", "configmap", kAgentHubCaConfigMap, "-n", ns.name(),
                          "--from-literal=ca.crt=unused"})
                .exit_code,
            0);

  k8s::JsonObject pod = AgentPodTemplate();
  pod.SetApiVersion("v1");
  pod.SetKind("Pod");
  pod.SetName("agent-check");
  pod.SetNamespace(ns.name());
  pod.SetLabel("rdmastack.io/simulate", "run");
  pod.Remove({"spec", "affinity"});
  ASSERT_TRUE(pod.SetString({"spec", "nodeName"}, node.name).ok());
  ASSERT_TRUE(pod.SetString({"spec", "restartPolicy"}, "Never").ok());
  std::vector<k8s::JsonObject> containers = pod.GetArray({"spec", "containers"});
  ASSERT_EQ(containers.size(), 1u);
  k8s::JsonObject& agent = containers[0];
  // The image this build made (the golden names the project version it was rendered with).
  ASSERT_TRUE(agent.SetString({"image"}, std::string("ghcr.io/rdmastack/agent:") + kVersion).ok());
  std::vector<std::string> run_args;
  for (const auto& a : agent.GetArray({"args"})) run_args.push_back(a.value().GetString());
  ASSERT_FALSE(run_args.empty());
  ASSERT_EQ(run_args[0], "run");
  k8s::JsonObject check_args = k8s::JsonObject::Array();
  for (const char* a : {"check", "--role", "gateway", "--output", "json"}) {
    ASSERT_TRUE(check_args.document().IsArray());
    check_args.document().PushBack(rapidjson::Value(a, check_args.document().GetAllocator()),
                                   check_args.document().GetAllocator());
  }
  // The DaemonSet's own --root and --live-probes, unchanged.
  bool live = false;
  for (size_t i = 1; i < run_args.size(); ++i) {
    if (run_args[i] == "--live-probes") live = true;
    if (run_args[i] != "--root" && run_args[i] != "--live-probes") continue;
    auto& alloc = check_args.document().GetAllocator();
    check_args.document().PushBack(rapidjson::Value(run_args[i].c_str(), alloc), alloc);
    if (run_args[i] == "--root") {
      check_args.document().PushBack(rapidjson::Value(run_args[i + 1].c_str(), alloc), alloc);
    }
  }
  ASSERT_TRUE(live) << "the DaemonSet no longer probes live; this test has nothing to run";
  ASSERT_TRUE(agent.Set({"args"}, check_args).ok());
  ASSERT_TRUE(pod.SetArray({"spec", "containers"}, containers).ok());
  ASSERT_EQ(env->Kubectl({"apply", "-n", ns.name(), "-f", "-"}, pod.Serialize()).exit_code, 0);

  std::string phase;
  ASSERT_TRUE(Eventually(
      [&] {
        phase = ns.PodField("agent-check", "{.status.phase}");
        return phase == "Succeeded" || phase == "Failed";
      },
      90s))
      << ns.PodField("agent-check", "{.status}");
  const std::string logs = ns.Logs("agent-check").out;
  // A NotReady report (exit 1), never a crash, a missing library or a file the image cannot read
  // (exit 2 with an error).
  EXPECT_EQ(ns.PodField("agent-check", "{.status.containerStatuses[0].state.terminated.exitCode}"),
            "1")
      << logs;
  StatusOr<k8s::JsonObject> report = k8s::JsonObject::Parse(logs);
  ASSERT_TRUE(report.ok()) << "not a JSON report: " << logs;
  EXPECT_EQ(report->GetString({"root"}), "/host");
  std::map<std::string, std::pair<std::string, std::string>> checks;  // id -> status, message
  for (const auto& c : report->GetArray({"checks"})) {
    checks[c.GetString({"id"}).value_or("")] = {c.GetString({"status"}).value_or(""),
                                                c.GetString({"message"}).value_or("")};
  }
  // The node's sysfs through the host root mounted at /host: its ConnectX-6.
  EXPECT_EQ(checks["rdma.devices"].first, "Pass") << logs;
  EXPECT_NE(checks["rdma.devices"].second.find("mlx5_0"), std::string::npos) << logs;
  // NVML was looked for live, below /host (the host's ld.so.cache and library directories); this
  // node has none. Recorded probes would have given the fixture's answer instead.
  EXPECT_NE(checks["probe.read-errors"].second.find("no loadable libnvidia-ml.so.1 below /host"),
            std::string::npos)
      << logs;
  // The addresses are live too: none of the node's netdevs backed by an RDMA port has one in the
  // node's namespace (the harness's recorded ips.txt would have given bond0's).
  EXPECT_EQ(report->GetString({"verdicts", "0", "reason"}), "NoRdmaIp") << logs;
}

}  // namespace
}  // namespace rdmastack::rdmanode::integration
