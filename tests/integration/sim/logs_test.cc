// `kubectl logs` through the API server for pods on simulated nodes: the API server calls the
// node runtime's kubelet log endpoint on the node's address (tests/harness/node-runtime/
// log_server.h). A pod that prints known lines and restarts once is read whole, --previous,
// --tail, --limit-bytes and -f (which sees a line printed after it started and ends when the
// container does); what the plain log cannot answer (--timestamps), a wrong container and a pod
// kwok runs get clear errors; and the endpoint serves only the API server's client certificate.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/harness/child_process.h"
#include "tests/integration/sim/sim_cluster.h"

namespace rdmastack::testing {
namespace {

using std::chrono::seconds;

// First run: two lines, exit 3 (restarted: OnFailure). Second run: three lines, then one line
// when the test creates /ctl/go and a last one when it creates /ctl/stop, then exit 0.
constexpr char kTalker[] =
    "if [ ! -e /state/ran ]; then touch /state/ran; echo first-run-1; echo first-run-2; exit 3; "
    "fi; echo second-run-1; echo second-run-2; echo second-run-3; "
    "while [ ! -e /ctl/go ]; do sleep 0.1; done; echo after-go; "
    "while [ ! -e /ctl/stop ]; do sleep 0.1; done; echo last-words";

std::string TalkerYaml(const std::string& node, const std::string& ctl_dir) {
  return R"(apiVersion: v1
kind: Pod
metadata: {name: talker, labels: {rdmastack.io/simulate: run}}
spec:
  nodeSelector: {kubernetes.io/hostname: )" +
         node + R"(}
  restartPolicy: OnFailure
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: rdmastack.invalid/host:1
    command: [sh, -c, ')" +
         kTalker + R"(']
    volumeMounts: [{name: ctl, mountPath: /ctl}, {name: state, mountPath: /state}]
  volumes:
  - {name: ctl, hostPath: {path: )" +
         ctl_dir + R"(, type: DirectoryOrCreate}}
  - {name: state, emptyDir: {}}
)";
}

class SimLogsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = GetClusterEnv();
    const sim::NodeTable nodes = SimulatedNodes();
    if (!nodes.empty()) node_ = nodes.begin()->second;
  }
  CommandResult Logs(const TestNamespace& ns, std::vector<std::string> args) const {
    args.insert(args.begin(), {"logs", "-n", ns.name()});
    return env_->Kubectl(args);
  }
  std::string Pki(const std::string& file) const {
    return (std::filesystem::path(env_->kubeconfig).parent_path() / "pki" / file).string();
  }
  const ClusterEnv* env_ = nullptr;
  sim::SimulatedNode node_;
};

#define REQUIRE_SIM_LOG_NODE()                                                                   \
  RDMASTACK_REQUIRE_CLUSTER(cluster_env);                                                        \
  ASSERT_FALSE(node_.name.empty()) << "no simulated nodes (RDMASTACK_SIM_NODES from cluster.sh " \
                                      "env)"

TEST_F(SimLogsTest, KubectlLogsReadsRunsTailsAndFollowsThroughTheApiServer) {
  REQUIRE_SIM_LOG_NODE();
  TestNamespace ns(*env_, "simlogs");
  const std::string ctl = "/tmp/" + ns.name();
  const std::filesystem::path host_ctl = node_.host_root + ctl;
  std::filesystem::create_directories(host_ctl);
  ns.Apply(TalkerYaml(node_.name, ctl));
  ASSERT_TRUE(Eventually(
      [&] {
        return ns.PodField("talker", "{.status.containerStatuses[0].restartCount}") == "1" &&
               ns.PodField("talker", "{.status.containerStatuses[0].state.running}") != "" &&
               Logs(ns, {"talker"}).out.find("second-run-3") != std::string::npos;
      },
      seconds(60)))
      << ns.PodField("talker", "{.status}");

  // The current run, the one before it, the last lines, the first bytes.
  CommandResult all = Logs(ns, {"talker"});
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out, "second-run-1\nsecond-run-2\nsecond-run-3\n");
  CommandResult previous = Logs(ns, {"talker", "--previous"});
  EXPECT_EQ(previous.exit_code, 0) << previous.err;
  EXPECT_EQ(previous.out, "first-run-1\nfirst-run-2\n");
  EXPECT_EQ(Logs(ns, {"talker", "--tail=2"}).out, "second-run-2\nsecond-run-3\n");
  EXPECT_EQ(Logs(ns, {"talker", "-c", "main", "--tail=1", "--previous"}).out, "first-run-2\n");
  EXPECT_EQ(Logs(ns, {"talker", "--limit-bytes=8"}).out, "second-r");

  // What the plain log cannot answer, and a container the pod does not have.
  CommandResult stamps = Logs(ns, {"talker", "--timestamps"});
  EXPECT_NE(stamps.exit_code, 0);
  EXPECT_NE(stamps.err.find("timestamps (kubectl logs --timestamps) is not supported by the "
                            "simulated node runtime"),
            std::string::npos)
      << stamps.err;
  CommandResult wrong = Logs(ns, {"talker", "-c", "nope"});
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_NE(wrong.err.find("container nope is not valid for pod talker"), std::string::npos)
      << wrong.err;

  // -f: the lines so far, a line printed after it started, and the end with the container.
  ChildProcess follow("kubectl-logs-f", {env_->kubectl, "--kubeconfig", env_->kubeconfig, "logs",
                                         "-f", "-n", ns.name(), "talker"});
  ASSERT_TRUE(follow.WaitForOutput("second-run-3\n", seconds(30))) << follow.Output();
  EXPECT_EQ(follow.Output().find("after-go"), std::string::npos);
  std::ofstream(host_ctl / "go").close();
  ASSERT_TRUE(follow.WaitForOutput("after-go\n", seconds(30))) << follow.Output();
  EXPECT_FALSE(follow.WaitExit(std::chrono::milliseconds(500)).has_value())
      << "kubectl logs -f ended while the container still runs: " << follow.Output();
  std::ofstream(host_ctl / "stop").close();
  EXPECT_EQ(follow.WaitExit(std::chrono::milliseconds(30'000)), 0) << follow.Output();
  EXPECT_EQ(follow.Output(), "second-run-1\nsecond-run-2\nsecond-run-3\nafter-go\nlast-words\n");
  std::filesystem::remove_all(host_ctl);
}

TEST_F(SimLogsTest, APodKwokRunsHasNoLogsAndSaysWhy) {
  REQUIRE_SIM_LOG_NODE();
  TestNamespace ns(*env_, "simlogskwok");
  ns.Apply(R"(apiVersion: v1
kind: Pod
metadata: {name: idle}
spec:
  nodeSelector: {kubernetes.io/hostname: )" +
           node_.name + R"(}
  containers: [{name: main, image: registry.invalid/idle:1}]
)");
  ASSERT_TRUE(Eventually([&] { return ns.PodField("idle", "{.spec.nodeName}") == node_.name; },
                         seconds(30)));
  CommandResult r = Logs(ns, {"idle"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("Error from server (BadRequest): pod \"" + ns.name() +
                       "/idle\" runs no processes on simulated node \"" + node_.name + "\""),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("kwok keeps this one and runs nothing for it"), std::string::npos) << r.err;
}

TEST_F(SimLogsTest, TheKubeletEndpointServesOnlyTheApiServersClientCertificate) {
  REQUIRE_SIM_LOG_NODE();
  TestNamespace ns(*env_, "simlogsauth");
  ns.Apply(R"(apiVersion: v1
kind: Pod
metadata: {name: hello, labels: {rdmastack.io/simulate: run}}
spec:
  nodeSelector: {kubernetes.io/hostname: )" +
           node_.name + R"(}
  terminationGracePeriodSeconds: 1
  containers:
  - {name: main, image: rdmastack.invalid/host:1, command: [sh, -c, "echo hello; exec sleep 3600"]}
)");
  ASSERT_TRUE(Eventually([&] { return Logs(ns, {"hello"}).out == "hello\n"; }, seconds(60)))
      << Logs(ns, {"hello"}).err;
  // Where the API server dials: the node's InternalIP at the port in its status.
  CommandResult port = env_->Kubectl(
      {"get", "node", node_.name, "-o", "jsonpath={.status.daemonEndpoints.kubeletEndpoint.Port}"});
  ASSERT_EQ(port.exit_code, 0) << port.err;
  const std::string base =
      "https://" + node_.address + ":" + port.out + "/containerLogs/" + ns.name() + "/hello/";
  auto curl = [&](const std::string& cert, const std::string& path) {
    std::vector<std::string> argv = {"curl",     "-sS",         "--max-time", "10",
                                     "--cacert", Pki("ca.crt"), "-w",         "\n%{http_code}"};
    if (!cert.empty()) {
      argv.insert(argv.end(), {"--cert", Pki(cert + ".crt"), "--key", Pki(cert + ".key")});
    }
    argv.push_back(base + path);
    return RunCommand(argv);
  };
  CommandResult apiserver = curl("apiserver-kubelet-client", "main");
  EXPECT_EQ(apiserver.exit_code, 0) << apiserver.err;
  EXPECT_EQ(apiserver.out, "hello\n\n200");
  CommandResult unknown = curl("apiserver-kubelet-client", "nope");
  EXPECT_EQ(unknown.out, "container \"nope\" not found in pod \"hello\"\n404");
  // The admin's certificate is the same CA's, but it is not the API server's.
  CommandResult admin = curl("admin", "main");
  EXPECT_EQ(admin.out.substr(admin.out.size() - 3), "403") << admin.out;
  EXPECT_NE(admin.out.find("Forbidden (user=rdmastack-admin"), std::string::npos) << admin.out;
  // No client certificate: no TLS session at all.
  CommandResult none = curl("", "main");
  EXPECT_NE(none.exit_code, 0) << none.out;
  EXPECT_EQ(none.out.find("hello"), std::string::npos) << none.out;
}

}  // namespace
}  // namespace rdmastack::testing
