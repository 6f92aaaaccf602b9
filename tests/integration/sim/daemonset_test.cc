// A labelled DaemonSet of real versitygw over three simulated nodes: each pod's process serves S3
// on its own node's address (from the host and from another node's namespace), an httpGet
// readiness probe drives Ready, a stopped listener turns the pod NotReady, a killed process is
// restarted, and deleting a pod or the DaemonSet leaves no process behind.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "base/clock.h"
#include "lib/s3/http.h"
#include "lib/s3/s3_client.h"
#include "tests/integration/sim/sim_cluster.h"

namespace rdmastack::testing {
namespace {

using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

constexpr char kAccess[] = "rdmastack-sim-access";
constexpr char kSecret[] = "rdmastack-sim-secret-0123456789";
constexpr int kPeriod = 2, kFailures = 2, kTimeout = 1;

// `data_dir`: the hostPath below each node's host root (per test: host roots outlive pods).
std::string DaemonSetYaml(const std::string& node_label, const std::string& data_dir) {
  return std::string(R"(apiVersion: v1
kind: Secret
metadata: {name: s3-root}
stringData: {access: )") +
         kAccess + ", secret: " + kSecret + R"(}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: s3}
spec:
  selector: {matchLabels: {app: s3}}
  template:
    metadata:
      labels: {app: s3, rdmastack.io/simulate: run}
    spec:
      hostNetwork: true
      nodeSelector: {)" +
         node_label + R"(: "yes"}
      terminationGracePeriodSeconds: 5
      containers:
      - name: versitygw
        image: versity/versitygw:v1.8.0
        args: [--port, "$(HOST_IP):7070", posix, /data]
        env:
        - {name: HOST_IP, valueFrom: {fieldRef: {fieldPath: status.hostIP}}}
        - {name: ROOT_ACCESS_KEY_ID, valueFrom: {secretKeyRef: {name: s3-root, key: access}}}
        - {name: ROOT_SECRET_ACCESS_KEY, valueFrom: {secretKeyRef: {name: s3-root, key: secret}}}
        - {name: VGW_HEALTH, value: /_/health}
        ports: [{name: s3, containerPort: 7070}]
        readinessProbe:
          httpGet: {path: /_/health, port: s3}
          periodSeconds: )" +
         std::to_string(kPeriod) + R"(
          failureThreshold: )" +
         std::to_string(kFailures) + R"(
          timeoutSeconds: )" +
         std::to_string(kTimeout) + R"(
        volumeMounts: [{name: data, mountPath: /data}]
      volumes:
      - {name: data, hostPath: {path: )" +
         data_dir + R"(, type: DirectoryOrCreate}}
)";
}

std::string GatewayBinary() {
  return BinaryDir() + "/bin/rdmastack-gateway";
}

s3::S3Client Client(s3::HttpTransport& transport, const std::string& ip) {
  return s3::S3Client(transport, s3::Endpoint{"http", ip, 7070}, {kAccess, kSecret}, "us-east-1",
                      RealClock::Instance(), std::chrono::seconds(5));
}

class SimDaemonSetTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (env_ == nullptr) return;
    for (const std::string& node : labelled_) {
      env_->Kubectl({"label", "node", node, label_ + "-"});
    }
  }
  const ClusterEnv* env_ = nullptr;
  std::string label_;
  std::vector<std::string> labelled_;
};

TEST_F(SimDaemonSetTest, VersitygwOnThreeNodesServesProbesRestartsAndCleansUp) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  env_ = env;
  const sim::NodeTable nodes = SimulatedNodes();
  ASSERT_GE(nodes.size(), 3u)
      << "needs 3 simulated nodes (RDMASTACK_SIM_NODES from cluster.sh env)";
  TestNamespace ns(*env, "simds");
  label_ = "sim-it.rdmastack.io/" + ns.name();
  for (const auto& [name, node] : nodes) {
    if (labelled_.size() == 3) break;
    ASSERT_EQ(env->Kubectl({"label", "node", name, label_ + "=yes"}).exit_code, 0);
    labelled_.push_back(name);
  }
  const std::string data_dir = "/var/lib/rdmastack-s3/" + ns.name();
  ns.Apply(DaemonSetYaml(label_, data_dir));

  // Three Ready pods, one per labelled node.
  std::vector<std::string> pods;
  const bool ready = Eventually(
      [&] {
        pods = ns.Pods("app=s3");
        if (pods.size() != 3) return false;
        return std::all_of(pods.begin(), pods.end(), [&](const std::string& p) {
          return ns.PodField(p, "{.status.conditions[?(@.type==\"Ready\")].status}") == "True";
        });
      },
      seconds(90));
  ASSERT_TRUE(ready) << env->Kubectl({"get", "pods", "-n", ns.name(), "-o", "yaml"}).out;

  s3::BeastHttpTransport transport;
  struct Served {
    std::string pod, node, ip;
    pid_t pid;
  };
  std::vector<Served> served;
  for (const std::string& pod : pods) {
    Served s{pod, ns.PodField(pod, "{.spec.nodeName}"), ns.PodField(pod, "{.status.hostIP}"),
             PidOfContainerId(ns.PodField(pod, "{.status.containerStatuses[0].containerID}"))};
    const sim::SimulatedNode& node = nodes.at(s.node);
    EXPECT_EQ(s.ip, node.address) << pod;
    EXPECT_EQ(ns.PodField(pod, "{.status.podIP}"), node.address);
    ASSERT_TRUE(ProcessAlive(s.pid)) << pod << " containerID -> pid " << s.pid;
    EXPECT_TRUE(InNetns(s.pid, node.netns)) << pod;
    // Env from the Secret and from status.hostIP reached the process itself.
    const std::vector<std::string> penv = ProcessEnv(s.pid);
    EXPECT_NE(std::find(penv.begin(), penv.end(), std::string("ROOT_SECRET_ACCESS_KEY=") + kSecret),
              penv.end());
    EXPECT_NE(std::find(penv.begin(), penv.end(), "HOST_IP=" + node.address), penv.end());
    // The hostPath volume landed in the node's own host root.
    EXPECT_TRUE(std::filesystem::is_directory(node.host_root + data_dir)) << node.host_root;
    served.push_back(s);
  }
  std::sort(served.begin(), served.end(),
            [](const Served& a, const Served& b) { return a.node < b.node; });

  // S3 from the host on each node's address: objects land in that node's host root.
  for (const Served& s : served) {
    s3::S3Client client = Client(transport, s.ip);
    auto bucket = client.Send({.method = "PUT", .path = "/b-" + s.node});
    ASSERT_TRUE(bucket.ok()) << s.ip << ": " << bucket.status().ToString();
    ASSERT_EQ(bucket->status, 200) << bucket->body;
    auto put =
        client.Send({.method = "PUT", .path = "/b-" + s.node + "/hello", .body = "from " + s.node});
    ASSERT_TRUE(put.ok() && put->status == 200) << (put.ok() ? put->body : put.status().ToString());
    auto get = client.Send({.method = "GET", .path = "/b-" + s.node + "/hello"});
    ASSERT_TRUE(get.ok());
    EXPECT_EQ(get->body, "from " + s.node);
    EXPECT_TRUE(
        std::filesystem::exists(nodes.at(s.node).host_root + data_dir + "/b-" + s.node + "/hello"));
  }
  // ...and from inside another node's namespace, with the gateway's own SigV4 probe.
  for (size_t i = 0; i < served.size(); ++i) {
    const Served& target = served[i];
    const std::string& from_netns = nodes.at(served[(i + 1) % served.size()].node).netns;
    CommandResult probe =
        RunCommand({"ip", "netns", "exec", from_netns, "env", "-i",
                    std::string("ROOT_ACCESS_KEY_ID=") + kAccess,
                    std::string("ROOT_SECRET_ACCESS_KEY=") + kSecret, GatewayBinary(), "probe",
                    "--endpoint", "http://" + target.ip + ":7070"});
    EXPECT_EQ(probe.exit_code, 0) << "from " << from_netns << " to " << target.ip << ": "
                                  << probe.err;
  }

  // A stopped listener: NotReady within periodSeconds x failureThreshold (plus one probe timeout
  // and the time a status write takes to show).
  const Served& victim = served.front();
  ASSERT_EQ(::kill(victim.pid, SIGSTOP), 0);
  const auto stopped_at = Clock::now();
  const bool not_ready = Eventually(
      [&] {
        return ns.PodField(victim.pod, "{.status.conditions[?(@.type==\"Ready\")].status}") ==
               "False";
      },
      seconds(30));
  const auto took =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - stopped_at);
  ASSERT_TRUE(not_ready);
  EXPECT_LE(took.count(), (kPeriod * kFailures + kTimeout + 2) * 1000)
      << "NotReady after " << took.count() << " ms";
  EXPECT_EQ(ns.PodField(victim.pod, "{.status.containerStatuses[0].ready}"), "false");
  for (const Served& other : served) {
    if (other.pod == victim.pod) continue;
    EXPECT_EQ(ns.PodField(other.pod, "{.status.conditions[?(@.type==\"Ready\")].status}"), "True");
  }

  // Killing the process restarts the container: restartCount 1, exit 137 recorded, Ready again.
  ASSERT_EQ(::kill(victim.pid, SIGKILL), 0);
  const bool restarted = Eventually(
      [&] {
        return ns.PodField(victim.pod, "{.status.containerStatuses[0].restartCount}") == "1" &&
               ns.PodField(victim.pod, "{.status.conditions[?(@.type==\"Ready\")].status}") ==
                   "True";
      },
      seconds(60));
  ASSERT_TRUE(restarted) << ns.PodField(victim.pod, "{.status}");
  EXPECT_EQ(ns.PodField(victim.pod, "{.status.containerStatuses[0].lastState.terminated.exitCode}"),
            "137");
  const pid_t new_pid =
      PidOfContainerId(ns.PodField(victim.pod, "{.status.containerStatuses[0].containerID}"));
  EXPECT_NE(new_pid, victim.pid);
  EXPECT_TRUE(ProcessAlive(new_pid));
  EXPECT_FALSE(ProcessAlive(victim.pid));
  EXPECT_TRUE(Client(transport, victim.ip)
                  .Send({.method = "GET", .path = "/b-" + victim.node + "/hello"})
                  .ok());

  // Deleting a pod stops its process and the pod object goes away (the DaemonSet makes another).
  const std::string uid = ns.PodField(victim.pod, "{.metadata.uid}");
  ASSERT_EQ(env->Kubectl({"delete", "pod", victim.pod, "-n", ns.name(), "--wait=false"}).exit_code,
            0);
  EXPECT_TRUE(Eventually([&] { return !ProcessAlive(new_pid); }, seconds(20))) << "pid " << new_pid;
  EXPECT_TRUE(
      Eventually([&] { return ns.PodField(victim.pod, "{.metadata.uid}") != uid; }, seconds(20)));

  // Deleting the DaemonSet leaves no process on any of the nodes.
  ASSERT_EQ(env->Kubectl({"delete", "daemonset", "s3", "-n", ns.name(), "--wait=false"}).exit_code,
            0);
  EXPECT_TRUE(Eventually([&] { return ns.Pods("app=s3").empty(); }, seconds(60)));
  for (const Served& s : served) {
    const std::string& netns = nodes.at(s.node).netns;
    EXPECT_TRUE(Eventually([&] { return ProcessesInNetns(netns).empty(); }, seconds(10))) << netns;
  }
}

}  // namespace
}  // namespace rdmastack::testing
