// The agent DaemonSet follows the GatewayPools and ClientProfiles: a node that nothing selects
// runs no agent; labelling it into a pool's selector starts one, and on a simulated node that
// agent runs for real (rdmastack-agent in the node's network namespace, dialling the hub).
#include <gtest/gtest.h>

#include "base/version.h"
#include "controllers/rdmanode/agent_daemonset.h"
#include "tests/harness/audit_log.h"
#include "tests/integration/rdmanode/node_controllers_run.h"
#include "tests/integration/sim/sim_cluster.h"

namespace rdmastack::rdmanode::integration {
namespace {

using namespace std::chrono_literals;
using ::rdmastack::testing::CommandResult;
using ::rdmastack::testing::Eventually;
using ::rdmastack::testing::RunCommand;
using ::rdmastack::testing::TestNamespace;

// A self-signed CA for the ConfigMap the agent's --ca-file comes from.
std::string SelfSignedPem(const std::string& dir) {
  CommandResult r = RunCommand({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                                "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
                                "/CN=rdmastack-agenthub-test", "-keyout", dir + "/ca.key", "-out",
                                dir + "/ca.crt"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir + "/ca.crt";
}

std::string Field(const ::rdmastack::testing::ClusterEnv& env,
                  const std::vector<std::string>& args) {
  CommandResult r = env.Kubectl(args);
  return r.exit_code == 0 ? r.out : "";
}

TEST(AgentDaemonSetIntegrationTest, AffinityFollowsPoolsAndTheAgentRunsOnALabelledNode) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const auto sim_nodes = ::rdmastack::testing::SimulatedNodes();
  if (sim_nodes.empty()) GTEST_SKIP() << "no simulated nodes (RDMASTACK_SIM_NODES)";
  const char* gateway = std::getenv("RDMASTACK_SIM_GATEWAY");
  ASSERT_NE(gateway, nullptr);
  RequireCrds(*env);
  TestNamespace ns(*env, "agent-ds");
  const auto& sim_node = sim_nodes.rbegin()->second;
  const std::string node = sim_node.name;
  const std::string label = "test.rdmastack.io/" + ns.name();
  struct Unlabel {
    const ::rdmastack::testing::ClusterEnv* env;
    std::string node, label;
    ~Unlabel() { env->Kubectl({"label", "node", node, label + "-"}); }
  } unlabel{env, node, label};

  // What the chart gives the agent: its ServiceAccount (charts/rdmastack), and the hub's CA.
  ::rdmastack::testing::ApplyChartAgentServiceAccount(ns);
  if (HasFatalFailure()) return;
  char tmpl[] = "/tmp/agent-ds-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  ASSERT_EQ(env->Kubectl({"create", "configmap", kAgentHubCaConfigMap, "-n", ns.name(),
                          "--from-file=ca.crt=" + SelfSignedPem(tmpl)})
                .exit_code,
            0);

  NodeControllerOptions options;
  // The image scripts/images.sh built: the simulated node runs it from its OCI archive.
  options.agent.image = std::string("ghcr.io/rdmastack/agent:") + kVersion;
  options.agent.extra_args = {"--probes-file=/host/etc/rdmastack-fixture/probes.txt"};
  options.agent.namespace_ = ns.name();
  options.agent.hub_address = std::string(gateway) + ":1";  // nothing listens: the agent retries
  options.agent.pod_labels = {{"rdmastack.io/simulate", "run"}};
  NodeControllersRun run(*env, "agent-ds", 60s, options);
  auto ds_field = [&](const std::string& path) {
    return Field(*env, {"get", "daemonset", kAgentName, "-n", ns.name(), "--ignore-not-found", "-o",
                        "jsonpath=" + path});
  };
  const auto others = Field(*env, {"get", "gwp,cprof", "-A", "-o", "name"});
  if (others.empty()) {
    // Nothing selects any node: no DaemonSet.
    std::this_thread::sleep_for(2s);
    EXPECT_EQ(ds_field("{.metadata.name}"), "");
  }

  ns.Apply(PoolYaml("kv", label, "storage"));
  ASSERT_TRUE(Eventually([&] { return !ds_field("{.metadata.name}").empty(); }, 30s));
  const std::string terms = ds_field(
      "{.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
      "nodeSelectorTerms}");
  EXPECT_NE(terms.find(label), std::string::npos) << terms;
  // No node carries the label yet: no agent pod on `node`.
  std::this_thread::sleep_for(3s);
  const std::string on_node = "spec.nodeName=" + node;
  auto pods_on_node = [&] {
    return Field(*env, {"get", "pods", "-n", ns.name(), "--field-selector", on_node, "-o",
                        "jsonpath={.items[*].metadata.name}"});
  };
  EXPECT_EQ(pods_on_node(), "");

  // Label the node into the pool: an agent pod starts there, and runs.
  ASSERT_EQ(env->Kubectl({"label", "node", node, label + "=storage"}).exit_code, 0);
  std::string pod;
  ASSERT_TRUE(Eventually(
      [&] {
        pod = pods_on_node();
        return !pod.empty() && ns.PodField(pod, "{.status.containerStatuses[0].started}") == "true";
      },
      90s))
      << pod << " " << ns.PodField(pod, "{.status}");
  const pid_t pid = ::rdmastack::testing::PidOfContainerId(
      ns.PodField(pod, "{.status.containerStatuses[0].containerID}"));
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(::rdmastack::testing::InNetns(pid, sim_node.netns));
  // It reads the node's fixture through /host and tries the hub (which is not there).
  EXPECT_TRUE(Eventually(
      [&] {
        auto logs = ns.Logs(pod);
        return logs.out.find(std::string(gateway) + ":1") != std::string::npos;
      },
      30s))
      << ns.Logs(pod).out;

  // The pool goes: so does the agent (no DaemonSet when nothing else selects a node).
  ASSERT_EQ(env->Kubectl({"delete", "gwp", "kv", "-n", ns.name()}).exit_code, 0);
  if (Field(*env, {"get", "gwp,cprof", "-A", "-o", "name"}).empty()) {
    EXPECT_TRUE(Eventually([&] { return ds_field("{.metadata.name}").empty(); }, 30s));
  }
  RunCommand({"rm", "-rf", tmpl});
}

}  // namespace
}  // namespace rdmastack::rdmanode::integration
