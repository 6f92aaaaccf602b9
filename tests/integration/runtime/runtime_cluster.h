#pragma once
// Shared setup for the runtime integration tests: an admin client and a fresh namespace.

#include <gtest/gtest.h>

#include <string>

#include "operator/k8s/client.h"
#include "operator/k8s/config.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::runtime::integration {

inline k8s::ClientPtr AdminClient(const rdmastack::testing::ClusterEnv& env) {
  auto config = k8s::LoadKubeconfig(env.kubeconfig);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  if (!config.ok()) return nullptr;
  auto client = k8s::NewRestClient(*config);
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return client.ok() ? std::move(*client) : nullptr;
}

inline std::string CreateNamespace(const rdmastack::testing::ClusterEnv& env,
                                   const std::string& prefix) {
  const std::string ns = rdmastack::testing::UniqueName(prefix);
  auto r = env.Kubectl({"create", "namespace", ns});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return ns;
}

inline void DeleteNamespace(const rdmastack::testing::ClusterEnv& env, const std::string& ns) {
  (void)env.Kubectl({"delete", "namespace", ns, "--wait=false"});
}

}  // namespace rdmastack::runtime::integration
