#include "controllers/rdmanode/agent_daemonset.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "controllers/common/tests/node_access_expectations.h"
#include "tests/harness/golden.h"

namespace rdmastack::rdmanode {
namespace {

AgentDaemonSetOptions Options() {
  AgentDaemonSetOptions o;
  o.image = "ghcr.io/rdmastack/agent:0.1.0";
  o.namespace_ = "rdmastack-system";
  o.hub_address = "rdmastack-agenthub.rdmastack-system.svc:9443";
  return o;
}

crd::GatewayPool Pool(crd::StringMap selector) {
  crd::GatewayPool p;
  p.metadata.name = "kv";
  p.metadata.namespace_ = "storage";
  p.spec.node_selector = std::move(selector);
  return p;
}

crd::ClientProfile Profile(crd::StringMap selector) {
  crd::ClientProfile p;
  p.metadata.name = "gd";
  p.metadata.namespace_ = "ml";
  p.spec.node_selector = std::move(selector);
  return p;
}

std::string Selectors(const k8s::JsonObject& ds) {
  auto terms = ds.GetArray({"spec", "template", "spec", "affinity", "nodeAffinity",
                            "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"});
  std::string out;
  for (const auto& t : terms) out += t.Serialize() + "\n";
  return out;
}

// The whole rendering, reviewed by hand: tests/golden/agent-daemonset.json
// (RDMASTACK_UPDATE_GOLDEN=1 rewrites it).
TEST(AgentDaemonSetTest, MatchesGolden) {
  auto pool = Pool({{"node-role.rdmastack.io/storage", ""}});
  crd::Toleration t;
  t.key = "rdmastack.io/storage";
  t.op = crd::TolerationOperator::kExists;
  t.effect = crd::TaintEffect::kNoSchedule;
  pool.spec.tolerations = {t};
  auto profile = Profile({{"node-role.rdmastack.io/gpu", ""}, {"gpu.vendor", "nvidia"}});
  profile.spec.tolerations = {t};  // the same toleration appears once
  auto options = Options();
  options.pod_labels = {{"rdmastack.io/simulate", "run"}};
  options.extra_args = {"--probe-interval", "30s"};
  auto ds = RenderAgentDaemonSet(options, {pool}, {profile});
  ASSERT_TRUE(ds);
  ::rdmastack::testing::ExpectMatchesGolden(
      "controllers/rdmanode/tests/golden/agent-daemonset.json", ds->SerializePretty() + "\n");
}

// A real node's agent probes live: --live-probes, the host's root and RDMA device files, and a
// container that may open host devices (node_access.h). The harness's --probes-file comes after
// it, from --agent-arg, and overrides it on simulated nodes.
TEST(AgentDaemonSetTest, LiveProbesWithTheDevicesAndPrivilegesTheyNeed) {
  auto options = Options();
  options.extra_args = {"--probes-file=/host/etc/rdmastack-fixture/probes.txt"};
  auto ds = RenderAgentDaemonSet(options, {Pool({{"role", "storage"}})}, {});
  ASSERT_TRUE(ds);
  const auto c = ds->Get({"spec", "template", "spec", "containers", "0"});
  ASSERT_TRUE(c.has_value());
  std::vector<std::string> args;
  for (const auto& a : c->GetArray({"args"})) args.push_back(a.GetString({}).value_or(""));
  const auto at = [&](const std::string& word) {
    return std::find(args.begin(), args.end(), word) - args.begin();
  };
  ASSERT_LT(at("--live-probes"), static_cast<long>(args.size()));
  EXPECT_EQ(args[at("--root") + 1], "/host");
  EXPECT_EQ(args.back(), "--probes-file=/host/etc/rdmastack-fixture/probes.txt");
  controllers::testing::ExpectLiveProbeAccess(*c);
  std::string volumes;
  for (const auto& v : ds->GetArray({"spec", "template", "spec", "volumes"}))
    volumes += v.Serialize() + "\n";
  EXPECT_NE(volumes.find(R"({"name":"host","hostPath":{"path":"/","type":"Directory"}})"),
            std::string::npos);
  EXPECT_NE(
      volumes.find(
          R"({"name":"dev-infiniband","hostPath":{"path":"/dev/infiniband","type":"DirectoryOrCreate"}})"),
      std::string::npos)
      << volumes;
}

// The chart's agent settings: its tolerations come after the pools' and its resources replace the
// built-in ones.
TEST(AgentDaemonSetTest, ChartTolerationsAndResources) {
  auto pool = Pool({{"role", "storage"}});
  crd::Toleration t;
  t.key = "rdmastack.io/storage";
  t.op = crd::TolerationOperator::kExists;
  pool.spec.tolerations = {t};
  auto options = Options();
  options.extra_tolerations_json = R"([{"key":"nvidia.com/gpu","operator":"Exists"}])";
  options.resources_json = R"({"requests":{"cpu":"50m"}})";
  auto ds = RenderAgentDaemonSet(options, {pool}, {});
  ASSERT_TRUE(ds);
  std::string tolerations;
  for (const auto& v : ds->GetArray({"spec", "template", "spec", "tolerations"}))
    tolerations += v.Serialize() + "\n";
  EXPECT_EQ(tolerations, R"({"key":"rdmastack.io/storage","operator":"Exists"}
{"key":"nvidia.com/gpu","operator":"Exists"}
)");
  auto containers = ds->GetArray({"spec", "template", "spec", "containers"});
  ASSERT_EQ(containers.size(), 1u);
  EXPECT_EQ(containers[0].Get({"resources"})->Serialize(), R"({"requests":{"cpu":"50m"}})");
}

// The install's pull secrets and priority class (controllers/common/node_pod_policy.h).
TEST(AgentDaemonSetTest, NodePodPolicy) {
  auto options = Options();
  options.node_pods.image_pull_secrets = {"mirror"};
  auto ds = RenderAgentDaemonSet(options, {Pool({{"role", "storage"}})}, {});
  ASSERT_TRUE(ds);
  EXPECT_EQ(ds->GetString({"spec", "template", "spec", "imagePullSecrets", "0", "name"}), "mirror");
  EXPECT_EQ(ds->GetString({"spec", "template", "spec", "priorityClassName"}),
            "system-node-critical");
}

TEST(AgentDaemonSetTest, NothingSelectsNoDaemonSet) {
  EXPECT_FALSE(RenderAgentDaemonSet(Options(), {}, {}));
  auto deleted = Pool({{"a", "b"}});
  deleted.metadata.deletion_timestamp = "2026-12-01T00:00:00Z";
  EXPECT_FALSE(RenderAgentDaemonSet(Options(), {deleted}, {}));
}

TEST(AgentDaemonSetTest, AffinityIsTheUnionOfSelectors) {
  auto ds = RenderAgentDaemonSet(
      Options(), {Pool({{"role", "storage"}})},
      {Profile({{"role", "gpu"}, {"zone", "a"}}), Profile({{"role", "storage"}})});
  ASSERT_TRUE(ds);
  EXPECT_EQ(
      Selectors(*ds),
      R"({"matchExpressions":[{"key":"role","operator":"In","values":["gpu"]},{"key":"zone","operator":"In","values":["a"]}]}
{"matchExpressions":[{"key":"role","operator":"In","values":["storage"]}]}
)");
}

TEST(AgentDaemonSetTest, AnEmptySelectorMeansEveryNode) {
  auto ds = RenderAgentDaemonSet(Options(), {Pool({{"role", "storage"}})}, {Profile({})});
  ASSERT_TRUE(ds);
  EXPECT_FALSE(ds->Has({"spec", "template", "spec", "affinity"}));
}

TEST(AgentDaemonSetTest, HashFollowsContentNotOrder) {
  const auto a = Pool({{"role", "storage"}});
  const auto b = Profile({{"role", "gpu"}});
  auto one = RenderAgentDaemonSet(Options(), {a}, {b});
  auto same = RenderAgentDaemonSet(Options(), {a}, {b, b});
  auto other = RenderAgentDaemonSet(Options(), {a}, {Profile({{"role", "gpu2"}})});
  const auto hash = [](const auto& ds) { return *ds->Annotation(kAppliedHashAnnotation); };
  EXPECT_EQ(hash(one), hash(same));
  EXPECT_NE(hash(one), hash(other));
  EXPECT_EQ(hash(one).size(), 64u);
}

}  // namespace
}  // namespace rdmastack::rdmanode
