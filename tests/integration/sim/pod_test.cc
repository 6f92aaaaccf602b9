// Single pods on simulated nodes: projected tokens that the API server accepts and binds to the
// pod and its node, env from Secrets/ConfigMaps/fieldRefs, init containers, the in-cluster API
// through the runtime's forwarder, crash and liveness restarts, startup probes, graceful deletion,
// image errors, and kwok staying off the labelled pods (counted from the API server's audit log).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "operator/k8s/json_object.h"
#include "tests/harness/audit_log.h"
#include "tests/integration/sim/sim_cluster.h"

namespace rdmastack::testing {
namespace {

using std::chrono::seconds;

std::string FirstNode() {
  const sim::NodeTable nodes = SimulatedNodes();
  return nodes.empty() ? "" : nodes.rbegin()->first;
}

// A labelled pod on `node` running `script` in the host-userland image.
std::string PodYaml(const std::string& name, const std::string& node, const std::string& script,
                    const std::string& extra_container = "", const std::string& extra_spec = "",
                    int grace_seconds = 1) {
  return R"(apiVersion: v1
kind: Pod
metadata: {name: )" +
         name + R"(, labels: {rdmastack.io/simulate: run}}
spec:
  nodeSelector: {kubernetes.io/hostname: )" +
         node + R"(}
  terminationGracePeriodSeconds: )" +
         std::to_string(grace_seconds) + "\n" + extra_spec +
         R"(  containers:
  - name: main
    image: rdmastack.invalid/host:1
    command: [sh, -c, ')" +
         script + R"(']
)" + extra_container;
}

bool LogsContain(const TestNamespace& ns, const std::string& pod, const std::string& text,
                 const std::string& container = "") {
  return Eventually([&] { return ns.Logs(pod, container).out.find(text) != std::string::npos; },
                    seconds(60));
}

class SimPodTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = GetClusterEnv();
    node_ = FirstNode();
  }
  bool Ready() const { return env_ != nullptr && !node_.empty(); }
  const ClusterEnv* env_ = nullptr;
  std::string node_;
};

#define REQUIRE_SIM_NODES()               \
  RDMASTACK_REQUIRE_CLUSTER(cluster_env); \
  ASSERT_TRUE(Ready()) << "no simulated nodes (RDMASTACK_SIM_NODES from cluster.sh env)"

TEST_F(SimPodTest, ProjectedTokenPassesTokenReviewBoundToThePodAndItsNode) {
  REQUIRE_SIM_NODES();
  TestNamespace ns(*env_, "simtok");
  ns.Apply("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: agent}\n");
  ns.Apply(PodYaml(
      "tok", node_, "cat /var/run/secrets/tokens/hub/token; echo; exec sleep 3600",
      R"(    volumeMounts: [{name: hub, mountPath: /var/run/secrets/tokens/hub, readOnly: true}]
  volumes:
  - name: hub
    projected:
      sources:
      - serviceAccountToken: {audience: rdmastack-it, expirationSeconds: 600, path: token}
)",
      "  serviceAccountName: agent\n"));
  ASSERT_TRUE(LogsContain(ns, "tok", "\n")) << ns.Logs("tok").err;
  const std::string token = ns.Logs("tok").out.substr(0, ns.Logs("tok").out.find('\n'));
  ASSERT_FALSE(token.empty());

  auto review = [&](const std::string& audience) {
    const std::string body = R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",)"
                             R"("spec":{"token":")" +
                             token + R"(","audiences":[")" + audience + R"("]}})";
    CommandResult r = env_->Kubectl({"create", "-f", "-", "-o", "json"}, body);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto parsed = k8s::JsonObject::Parse(r.out);
    return parsed.ok() ? *parsed : k8s::JsonObject();
  };
  const k8s::JsonObject ok = review("rdmastack-it");
  EXPECT_EQ(ok.GetBool({"status", "authenticated"}), true) << ok.Serialize();
  EXPECT_EQ(ok.GetString({"status", "user", "username"}),
            "system:serviceaccount:" + ns.name() + ":agent");
  EXPECT_EQ(ok.GetString({"status", "user", "extra", "authentication.kubernetes.io/pod-name", "0"}),
            "tok");
  EXPECT_EQ(ok.GetString({"status", "user", "extra", "authentication.kubernetes.io/pod-uid", "0"}),
            ns.PodField("tok", "{.metadata.uid}"));
  EXPECT_EQ(
      ok.GetString({"status", "user", "extra", "authentication.kubernetes.io/node-name", "0"}),
      node_);
  EXPECT_EQ(ok.GetString({"status", "audiences", "0"}), "rdmastack-it");
  // The audience the pod asked for is the only one the token carries.
  const k8s::JsonObject other = review("someone-else");
  EXPECT_NE(other.GetBool({"status", "authenticated"}), std::optional<bool>(true))
      << other.Serialize();
}

TEST_F(SimPodTest, EnvFromSecretConfigMapAndFieldsReachTheProcessAfterInitContainers) {
  REQUIRE_SIM_NODES();
  TestNamespace ns(*env_, "simenv");
  ns.Apply(R"(apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {password: hunter2-from-secret}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {REGION: sim-region-1}
)");
  ns.Apply(PodYaml("env", node_,
                   "echo \"secret=$PASSWORD host=$HOST_IP node=$NODE region=$REGION ns=$MY_NS "
                   "init=$(cat /work/from-init)\"; exec sleep 3600",
                   R"(    envFrom: [{configMapRef: {name: settings}}]
    env:
    - {name: PASSWORD, valueFrom: {secretKeyRef: {name: creds, key: password}}}
    - {name: HOST_IP, valueFrom: {fieldRef: {fieldPath: status.hostIP}}}
    - {name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}
    - {name: MY_NS, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}
    volumeMounts: [{name: work, mountPath: /work}]
  volumes: [{name: work, emptyDir: {}}]
)",
                   R"(  initContainers:
  - name: first
    image: rdmastack.invalid/host:1
    command: [sh, -c, 'echo one > /work/from-init']
    volumeMounts: [{name: work, mountPath: /work}]
  - name: second
    image: rdmastack.invalid/host:1
    command: [sh, -c, 'echo two >> /work/from-init']
    volumeMounts: [{name: work, mountPath: /work}]
)"));
  const std::string address = SimulatedNodes().at(node_).address;
  const std::string want = "secret=hunter2-from-secret host=" + address + " node=" + node_ +
                           " region=sim-region-1 ns=" + ns.name() + " init=one\ntwo";
  EXPECT_TRUE(LogsContain(ns, "env", want, "main"))
      << ns.Logs("env", "main").out << ns.Logs("env", "main").err;
  EXPECT_EQ(ns.PodField("env", "{.status.initContainerStatuses[*].state.terminated.reason}"),
            "Completed Completed");
  EXPECT_EQ(ns.PodField("env", "{.status.conditions[?(@.type==\"Initialized\")].status}"), "True");
  EXPECT_EQ(ns.PodField("env", "{.status.phase}"), "Running");
}

TEST_F(SimPodTest, ServiceAccountTokenReachesTheApiServerFromTheNode) {
  REQUIRE_SIM_NODES();
  TestNamespace ns(*env_, "simapi");
  ns.Apply(PodYaml("api", node_,
                   "SA=/var/run/secrets/kubernetes.io/serviceaccount; "
                   "curl -sS --cacert $SA/ca.crt -H \"Authorization: Bearer $(cat $SA/token)\" "
                   "-H \"Content-Type: application/json\" -X POST "
                   "-d "
                   "{\\\"apiVersion\\\":\\\"authentication.k8s.io/"
                   "v1\\\",\\\"kind\\\":\\\"SelfSubjectReview\\\"} "
                   "https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT/apis/"
                   "authentication.k8s.io/v1/selfsubjectreviews; "
                   "echo; echo ns=$(cat $SA/namespace); exec sleep 3600"));
  EXPECT_TRUE(
      LogsContain(ns, "api", "\"username\": \"system:serviceaccount:" + ns.name() + ":default\""))
      << ns.Logs("api").out << ns.Logs("api").err;
  EXPECT_NE(ns.Logs("api").out.find("ns=" + ns.name()), std::string::npos);
}

TEST_F(SimPodTest, CrashingContainerRestartsWithBackoffAndKeepsPreviousLog) {
  REQUIRE_SIM_NODES();
  TestNamespace ns(*env_, "simcrash");
  ns.Apply(PodYaml("crash", node_, "echo run-$(date +%s%N); exit 3"));
  ASSERT_TRUE(Eventually(
      [&] {
        return std::atoi(
                   ns.PodField("crash", "{.status.containerStatuses[0].restartCount}").c_str()) >=
                   1 &&
               ns.PodField("crash", "{.status.containerStatuses[0].state.waiting.reason}") ==
                   "CrashLoopBackOff";
      },
      seconds(60)))
      << ns.PodField("crash", "{.status}");
  EXPECT_EQ(ns.PodField("crash", "{.status.containerStatuses[0].lastState.terminated.exitCode}"),
            "3");
  EXPECT_EQ(ns.PodField("crash", "{.status.containerStatuses[0].lastState.terminated.reason}"),
            "Error");
  EXPECT_NE(ns.PodField("crash", "{.status.containerStatuses[0].state.waiting.message}")
                .find("back-off 10s"),
            std::string::npos);
  EXPECT_EQ(ns.PodField("crash", "{.status.conditions[?(@.type==\"Ready\")].status}"), "False");
  CommandResult previous =
      RunCommand({env_->cluster_script, "logs", "-n", ns.name(), "crash", "--previous"});
  EXPECT_EQ(previous.exit_code, 0) << previous.err;
  EXPECT_EQ(previous.out.rfind("run-", 0), 0u) << previous.out;
  EXPECT_NE(previous.out, ns.Logs("crash").out);
}

TEST_F(SimPodTest, FailedExecLivenessProbeRestartsTheContainer) {
  REQUIRE_SIM_NODES();
  TestNamespace ns(*env_, "simlive");
  // /tmp is the container's own: the probe sees the file only if it runs inside the container.
  ns.Apply(PodYaml("live", node_, "touch /tmp/healthy; sleep 3; rm /tmp/healthy; exec sleep 3600",
                   R"(    livenessProbe:
      exec: {command: [test, -f, /tmp/healthy]}
      periodSeconds: 1
      failureThreshold: 2
)"));
  ASSERT_TRUE(Eventually(
      [&] { return ns.PodField("live", "{.status.containerStatuses[0].started}") == "true"; },
      seconds(60)));
  EXPECT_EQ(ns.PodField("live", "{.status.containerStatuses[0].restartCount}"), "0");
  ASSERT_TRUE(Eventually(
      [&] { return ns.PodField("live", "{.status.containerStatuses[0].restartCount}") == "1"; },
      seconds(30)))
      << ns.PodField("live", "{.status}");
  // sh as PID 1 ignores SIGTERM, so the grace period (1 s) ends with SIGKILL, as in a container.
  EXPECT_EQ(ns.PodField("live", "{.status.containerStatuses[0].lastState.terminated.exitCode}"),
            "137");
}

TEST_F(SimPodTest, StartupProbeHoldsTheOtherProbesAndReadinessUntilItPasses) {
  REQUIRE_SIM_NODES();
  TestNamespace ns(*env_, "simstart");
  ns.Apply(PodYaml(
      "slow", node_, "sleep 3; touch /tmp/started; exec sleep 3600",
      R"(    startupProbe: {exec: {command: [test, -f, /tmp/started]}, periodSeconds: 1, failureThreshold: 30}
    readinessProbe: {exec: {command: [test, -f, /tmp/started]}, periodSeconds: 1}
)"));
  ASSERT_TRUE(
      Eventually([&] { return ns.PodField("slow", "{.status.phase}") == "Running"; }, seconds(60)));
  EXPECT_EQ(ns.PodField("slow", "{.status.containerStatuses[0].started}"), "false");
  EXPECT_EQ(ns.PodField("slow", "{.status.containerStatuses[0].ready}"), "false");
  ASSERT_TRUE(Eventually(
      [&] {
        return ns.PodField("slow", "{.status.conditions[?(@.type==\"Ready\")].status}") == "True";
      },
      seconds(30)));
  EXPECT_EQ(ns.PodField("slow", "{.status.containerStatuses[0].started}"), "true");
  EXPECT_EQ(ns.PodField("slow", "{.status.containerStatuses[0].restartCount}"), "0");
}

TEST_F(SimPodTest, DeletionSendsSigtermAndKillsAfterTheGracePeriod) {
  REQUIRE_SIM_NODES();
  TestNamespace ns(*env_, "simdel");
  // One process handles SIGTERM and exits; the other (sh as PID 1) cannot be stopped by it.
  ns.Apply(PodYaml(
      "polite", node_,
      "trap \"echo got-sigterm; exit 0\" TERM; echo started; while true; do sleep 0.1; done", "",
      "", 30));
  ns.Apply(PodYaml("stubborn", node_, "echo started; while true; do sleep 0.1; done", "", "", 3));
  ASSERT_TRUE(LogsContain(ns, "polite", "started"));
  ASSERT_TRUE(LogsContain(ns, "stubborn", "started"));
  auto timed_delete = [&](const std::string& pod) {
    const auto start = std::chrono::steady_clock::now();
    CommandResult r = env_->Kubectl({"delete", "pod", pod, "-n", ns.name(), "--timeout=60s"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const double polite_s = timed_delete("polite");
  const double stubborn_s = timed_delete("stubborn");
  EXPECT_LT(polite_s, 10.0) << "the process exited on SIGTERM; no need to wait out 30 s";
  EXPECT_NE(ns.Logs("polite").out.find("got-sigterm"), std::string::npos) << ns.Logs("polite").out;
  EXPECT_GE(stubborn_s, 3.0) << "SIGKILL only after the 3 s grace period";
  EXPECT_LT(stubborn_s, 15.0);
}

TEST_F(SimPodTest, UnknownImageIsErrImagePullNamingTheTable) {
  REQUIRE_SIM_NODES();
  TestNamespace ns(*env_, "simimg");
  ns.Apply(R"(apiVersion: v1
kind: Pod
metadata: {name: img, labels: {rdmastack.io/simulate: run}}
spec:
  nodeSelector: {kubernetes.io/hostname: )" +
           node_ + R"(}
  containers: [{name: c, image: "quay.io/nobody/nothing:1"}]
)");
  ASSERT_TRUE(Eventually(
      [&] {
        return ns.PodField("img", "{.status.containerStatuses[0].state.waiting.reason}") ==
               "ErrImagePull";
      },
      seconds(60)));
  EXPECT_NE(ns.PodField("img", "{.status.containerStatuses[0].state.waiting.message}")
                .find("is not in the simulated node's image table"),
            std::string::npos);
  EXPECT_EQ(ns.PodField("img", "{.status.phase}"), "Pending");
}

// Writes to pod ns/name (any subresource) by clients whose user agent contains `agent`, from the
// API server's audit log.
int PodWritesBy(const std::string& ns, const std::string& name, const std::string& agent) {
  int n = 0;
  for (const AuditedWrite& w : WritesByAgent(ReadAuditedWrites(), agent)) {
    n += w.resource == "pods" && w.namespace_ == ns && w.name == name;
  }
  return n;
}

TEST_F(SimPodTest, KwokNeverWritesTheStatusOfLabelledPods) {
  REQUIRE_SIM_NODES();
  ASSERT_NE(std::getenv("RDMASTACK_AUDIT_LOG"), nullptr);
  TestNamespace ns(*env_, "simkwok");
  // Never ready: kwok, if it touched the pod, would mark it Ready at once.
  ns.Apply(PodYaml("ours", node_, "exec sleep 3600",
                   R"(    readinessProbe: {tcpSocket: {port: 1}, periodSeconds: 1}
)"));
  ns.Apply(R"(apiVersion: v1
kind: Pod
metadata: {name: plain}
spec:
  nodeSelector: {kubernetes.io/hostname: )" +
           node_ + R"(}
  containers: [{name: c, image: registry.invalid/plain:1}]
)");
  ASSERT_TRUE(Eventually([&] { return ns.PodField("plain", "{.status.phase}") == "Running"; },
                         seconds(60)));
  ASSERT_TRUE(
      Eventually([&] { return ns.PodField("ours", "{.status.phase}") == "Running"; }, seconds(60)));
  std::this_thread::sleep_for(seconds(3));
  EXPECT_EQ(ns.PodField("ours", "{.status.conditions[?(@.type==\"Ready\")].status}"), "False");
  EXPECT_EQ(ns.PodField("plain", "{.status.conditions[?(@.type==\"Ready\")].status}"), "True");
  EXPECT_EQ(ns.Logs("plain").exit_code, 1);  // kwok runs nothing for it
  EXPECT_NE(ns.Logs("plain").err.find("only pods labelled rdmastack.io/simulate=run"),
            std::string::npos);

  EXPECT_EQ(PodWritesBy(ns.name(), "ours", "kwok"), 0);
  EXPECT_GE(PodWritesBy(ns.name(), "ours", "rdmastack-node-runtime"), 1);
  EXPECT_GE(PodWritesBy(ns.name(), "plain", "kwok"), 1);
  EXPECT_EQ(PodWritesBy(ns.name(), "plain", "rdmastack-node-runtime"), 0);
}

}  // namespace
}  // namespace rdmastack::testing
