#include "controllers/common/node_pod_policy.h"

#include <gtest/gtest.h>

namespace rdmastack::controllers {
namespace {

std::string PullSecrets(const k8s::JsonObject& spec) {
  std::string out;
  for (const auto& ref : spec.GetArray({"imagePullSecrets"})) out += ref.Serialize();
  return out;
}

TEST(NodePodPolicyTest, DefaultIsNodeCriticalWithoutPullSecrets) {
  k8s::JsonBuilder spec;
  ApplyNodePodPolicy(NodePodPolicy{}, {}, &spec);
  EXPECT_EQ(spec.object().GetString({"priorityClassName"}), "system-node-critical");
  EXPECT_FALSE(spec.object().Has({"imagePullSecrets"}));
}

TEST(NodePodPolicyTest, TheInstallsSecretsFirstThenTheObjectsOwnEachOnce) {
  NodePodPolicy policy;
  policy.image_pull_secrets = {"mirror", "ngc"};
  k8s::JsonBuilder spec;
  ApplyNodePodPolicy(policy, {"site", "ngc", ""}, &spec);
  EXPECT_EQ(PullSecrets(spec.object()), R"({"name":"mirror"}{"name":"ngc"}{"name":"site"})");
}

TEST(NodePodPolicyTest, NoPriorityClassWhenTheInstallAsksForNone) {
  NodePodPolicy policy;
  policy.priority_class_name = "";
  k8s::JsonBuilder spec;
  ApplyNodePodPolicy(policy, {}, &spec);
  EXPECT_FALSE(spec.object().Has({"priorityClassName"}));
}

}  // namespace
}  // namespace rdmastack::controllers
