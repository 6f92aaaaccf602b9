// Proves that the local control plane is a real one: the DaemonSet controller, scheduler and kwok
// run pods on every node; RBAC denies an unprivileged ServiceAccount; CRD schemas are enforced by
// the apiserver.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tests/harness/cluster_env.h"

namespace rdmastack::testing {
namespace {

using std::chrono::seconds;

int CountLines(const std::string& s, const std::string& needle) {
  int n = 0;
  for (size_t pos = s.find(needle); pos != std::string::npos; pos = s.find(needle, pos + 1)) ++n;
  return n;
}

class ControlPlaneTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (env_ != nullptr && !ns_.empty()) env_->Kubectl({"delete", "namespace", ns_, "--wait=false"});
  }
  void CreateNamespace(const ClusterEnv* env) {
    env_ = env;
    ns_ = UniqueName("cp");
    auto r = env->Kubectl({"create", "namespace", ns_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const ClusterEnv* env_ = nullptr;
  std::string ns_;
};

TEST_F(ControlPlaneTest, DaemonSetRunsOneReadyPodOnEveryNode) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  CreateNamespace(env);
  auto nodes = env->Kubectl({"get", "nodes", "-o", "name"});
  ASSERT_EQ(nodes.exit_code, 0) << nodes.err;
  const int node_count = CountLines(nodes.out, "node/");
  ASSERT_GT(node_count, 0);

  const std::string ds = R"(apiVersion: apps/v1
kind: DaemonSet
metadata: {name: probe}
spec:
  selector: {matchLabels: {app: probe}}
  template:
    metadata: {labels: {app: probe}}
    spec:
      containers: [{name: c, image: registry.invalid/probe:1}]
)";
  auto apply = env->Kubectl({"apply", "-n", ns_, "-f", "-"}, ds);
  ASSERT_EQ(apply.exit_code, 0) << apply.err;

  auto rollout = env->Kubectl({"rollout", "status", "daemonset/probe", "-n", ns_, "--timeout=120s"});
  ASSERT_EQ(rollout.exit_code, 0) << rollout.out << rollout.err;

  CommandResult pods;
  const bool all_ready = Eventually(
      [&] {
        pods = env->Kubectl({"get", "pods", "-n", ns_, "-o",
                             "jsonpath={range .items[*]}{.spec.nodeName} {.status.phase} "
                             "{.status.conditions[?(@.type==\"Ready\")].status}{\"\\n\"}{end}"});
        return pods.exit_code == 0 && CountLines(pods.out, "Running True") == node_count;
      },
      seconds(120));
  ASSERT_TRUE(all_ready) << "expected " << node_count << " Running+Ready pods:\n" << pods.out << pods.err;
  // Exactly one pod per node: every node name appears once.
  auto names = env->Kubectl({"get", "nodes", "-o", "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}"});
  size_t start = 0;
  while (start < names.out.size()) {
    size_t end = names.out.find('\n', start);
    std::string node = names.out.substr(start, end - start);
    if (!node.empty()) {
      EXPECT_EQ(CountLines(pods.out, node + " "), 1) << node << "\n" << pods.out;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

TEST_F(ControlPlaneTest, RbacDeniesUnprivilegedTokenAndAllowsAdmin) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  CreateNamespace(env);
  ASSERT_EQ(env->Kubectl({"create", "serviceaccount", "nobody", "-n", ns_}).exit_code, 0);
  const std::string kubeconfig = "/tmp/" + ns_ + "-nobody.kubeconfig";
  auto made = RunCommand({env->cluster_script, "sa-kubeconfig", ns_, "nobody", kubeconfig});
  ASSERT_EQ(made.exit_code, 0) << made.err;

  auto denied = env->KubectlAs(kubeconfig, {"get", "nodes"});
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_NE(denied.err.find("Forbidden"), std::string::npos) << denied.err;
  EXPECT_NE(denied.err.find("system:serviceaccount:" + ns_ + ":nobody"), std::string::npos)
      << denied.err;

  auto allowed = env->Kubectl({"get", "nodes"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  std::remove(kubeconfig.c_str());
}

TEST_F(ControlPlaneTest, CrdSchemaRejectsInvalidObjectWithServerMessage) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  CreateNamespace(env);
  const std::string crd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.harness.rdmastack.io}
spec:
  group: harness.rdmastack.io
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [port]
            properties:
              port: {type: integer, minimum: 1, maximum: 65535}
)";
  ASSERT_EQ(env->Kubectl({"apply", "-f", "-"}, crd).exit_code, 0);
  ASSERT_EQ(env->Kubectl({"wait", "--for=condition=Established", "crd/widgets.harness.rdmastack.io",
                          "--timeout=60s"}).exit_code, 0);

  auto good = env->Kubectl({"apply", "-n", ns_, "-f", "-"},
                           "apiVersion: harness.rdmastack.io/v1\nkind: Widget\nmetadata: {name: ok}\n"
                           "spec: {port: 7071}\n");
  EXPECT_EQ(good.exit_code, 0) << good.err;

  auto bad = env->Kubectl({"apply", "-n", ns_, "-f", "-"},
                          "apiVersion: harness.rdmastack.io/v1\nkind: Widget\nmetadata: {name: bad}\n"
                          "spec: {port: 70000}\n");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("spec.port"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("should be less than or equal to 65535"), std::string::npos) << bad.err;
  auto absent = env->Kubectl({"get", "widget", "bad", "-n", ns_});
  EXPECT_NE(absent.exit_code, 0);
}

}  // namespace
}  // namespace rdmastack::testing
