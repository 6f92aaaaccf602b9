#include "tests/harness/cluster_test.h"

namespace rdmastack::testing {

void ClusterWithCrdsTest::SetUp() {
  env_ = GetClusterEnv();
  if (env_ == nullptr) GTEST_SKIP() << "no cluster";
  ASSERT_EQ(InstallCrds(*env_).exit_code, 0);
  auto client = k8s::NewRestClientFromKubeconfig(env_->kubeconfig);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  admin_ = std::move(*client);
}

}  // namespace rdmastack::testing
