#pragma once
// Shared setup for the runtime integration tests: an admin client, a fresh namespace, and the
// cache-versus-list comparison.

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "operator/k8s/client.h"
#include "operator/k8s/config.h"
#include "operator/runtime/store.h"
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

// key -> resourceVersion of a store and of a fresh list of ConfigMaps in `ns`. Watch events may
// trail the list by a moment, so this retries (up to 5 s) until both agree and returns the last
// pair seen.
struct CacheAndList {
  std::map<std::string, std::string> cached;
  std::map<std::string, std::string> listed;
};
inline CacheAndList CompareCacheWithList(k8s::Client& client, const std::string& ns,
                                         const runtime::Store& store) {
  CacheAndList out;
  for (int attempt = 0; attempt < 50; ++attempt) {
    out.listed.clear();
    out.cached.clear();
    auto list = client.ListAll(k8s::kinds::ConfigMap(), ns);
    EXPECT_TRUE(list.ok()) << list.status().ToString();
    if (!list.ok()) return out;
    for (const auto& o : list->items) out.listed[o.Key()] = std::string(o.ResourceVersion());
    for (const auto& o : store.List()) out.cached[o->Key()] = std::string(o->ResourceVersion());
    if (out.listed == out.cached) return out;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return out;
}

}  // namespace rdmastack::runtime::integration
