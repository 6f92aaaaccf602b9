#include "controllers/gatewaypool/iam_cleanup.h"

#include <gtest/gtest.h>

#include "controllers/gatewaypool/tests/test_pools.h"

namespace rdmastack::gatewaypool {
namespace {

using testing::SamplePool;

TEST(IamCleanupPlanTest, ANodeIsReleasedOnceItsPodIsReadyAndGivenUpOnlyAtTheTimeLimit) {
  const std::vector<IamCleanupNode> nodes = {
      {"never-ran", {}, false},
      {"clean", {"gwp.rdmastack.io/ml.kv.v1"}, true},
      {"busy", {"gwp.rdmastack.io/ml.kv.v1", "gwp.rdmastack.io/ml.kv.v2"}, false},
      {"down", {"gwp.rdmastack.io/ml.kv.v2"}, false},
  };
  const IamCleanupPlan waiting = PlanIamCleanup(nodes, /*timed_out=*/false);
  EXPECT_TRUE(waiting.waiting);
  EXPECT_EQ(waiting.cleaned, std::vector<std::string>{"clean"});
  EXPECT_TRUE(waiting.abandoned.empty());
  EXPECT_EQ(waiting.label_keys,
            (std::set<std::string>{"gwp.rdmastack.io/ml.kv.v1", "gwp.rdmastack.io/ml.kv.v2"}))
      << "the nodes still waiting, by any of their track labels";

  const IamCleanupPlan late = PlanIamCleanup(nodes, /*timed_out=*/true);
  EXPECT_FALSE(late.waiting);
  EXPECT_EQ(late.cleaned, std::vector<std::string>{"clean"});
  EXPECT_EQ(late.abandoned, (std::vector<std::string>{"busy", "down"}));
  EXPECT_TRUE(late.label_keys.empty());

  EXPECT_FALSE(PlanIamCleanup({{"never-ran", {}, false}}, false).waiting)
      << "a pool that never ran a gateway has nothing to clean";
}

TEST(IamCleanupDaemonSetTest, RunsTheOperatorsImageOnTheWaitingNodesAndRemovesOnlyThePoolsName) {
  crd::GatewayPool pool = SamplePool();
  pool.metadata.uid = "5d1c0a7e-0000-4000-8000-000000000001";
  GatewayRenderOptions options;
  options.cleanup_image = "ghcr.io/rdmastack/client@sha256:abc";
  options.pod_labels = {{"rdmastack.io/simulate", "run"}};
  const k8s::JsonObject ds = RenderIamCleanupDaemonSet(
      pool, {"gwp.rdmastack.io/a.kvcache.v1", "gwp.rdmastack.io/a.kvcache.v2"}, options);
  const std::string ns = pool.metadata.namespace_.value_or("");
  EXPECT_EQ(ds.GetString({"metadata", "name"}), pool.metadata.name + "-iam-cleanup");
  EXPECT_EQ(ds.GetString({"metadata", "ownerReferences", "0", "uid"}), pool.metadata.uid);
  EXPECT_EQ(ds.GetString({"spec", "updateStrategy", "type"}), "OnDelete");
  EXPECT_EQ(ds.GetString({"spec", "template", "metadata", "labels", "rdmastack.io/simulate"}),
            "run");
  const auto terms =
      ds.GetArray({"spec", "template", "spec", "affinity", "nodeAffinity",
                   "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"});
  ASSERT_EQ(terms.size(), 2u) << "any one of the labels (terms are ORed)";
  EXPECT_EQ(terms[1].GetString({"matchExpressions", "0", "key"}), "gwp.rdmastack.io/a.kvcache.v2");
  EXPECT_EQ(terms[1].GetString({"matchExpressions", "0", "operator"}), "Exists");

  const k8s::JsonObject c = *ds.Get({"spec", "template", "spec", "containers", "0"});
  EXPECT_EQ(c.GetString({"image"}), options.cleanup_image) << "never the pool's image";
  EXPECT_EQ(c.GetString({"args", "0"}), "remove-dir");
  EXPECT_EQ(c.GetString({"args", "3"}), "--name");
  EXPECT_EQ(c.GetString({"args", "4"}), ns + "." + pool.metadata.name + "." + *pool.metadata.uid);
  EXPECT_EQ(c.GetString({"securityContext", "capabilities", "drop", "0"}), "ALL");
  EXPECT_EQ(c.Get({"securityContext", "privileged"}), std::nullopt);
  // One host path: the root of the pools' IAM directories.
  int host_paths = 0;
  for (const auto& v : ds.GetArray({"spec", "template", "spec", "volumes"})) {
    if (auto path = v.GetString({"hostPath", "path"})) {
      ++host_paths;
      EXPECT_EQ(*path, kIamHostRoot);
    }
  }
  EXPECT_EQ(host_paths, 1);
  EXPECT_EQ(ds.GetBool({"spec", "template", "spec", "automountServiceAccountToken"}), false);
}

}  // namespace
}  // namespace rdmastack::gatewaypool
