// An informer across an apiserver restart and an etcd compaction (private cluster only: it
// restarts the apiserver): changes made meanwhile reach the handlers, through a re-watch or a
// relist, and the cache ends equal to a fresh list.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <thread>

#include "operator/runtime/informer.h"
#include "tests/integration/runtime/runtime_cluster.h"

namespace rdmastack::runtime {
namespace {

bool OnPrivateCluster() {
  const char* cluster = std::getenv("RDMASTACK_CLUSTER");
  return cluster != nullptr && *cluster != '\0' && std::string(cluster) != "default";
}

TEST(InformerResilienceIntegrationTest, ConvergesAfterApiserverRestartAndCompaction) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  if (!OnPrivateCluster()) {
    GTEST_SKIP() << "restarts the apiserver and compacts etcd: only on a private cluster "
                    "(RDMASTACK_CLUSTER=<name> RDMASTACK_PORT_OFFSET=<n>)";
  }
  auto client = integration::AdminClient(*env);
  ASSERT_NE(client, nullptr);
  const std::string ns = integration::CreateNamespace(*env, "rt-resilience");
  ASSERT_EQ(env->Kubectl({"-n", ns, "create", "configmap", "keep"}).exit_code, 0);
  ASSERT_EQ(env->Kubectl({"-n", ns, "create", "configmap", "gone"}).exit_code, 0);

  InformerOptions options;
  options.type = k8s::kinds::ConfigMap();
  options.ns = ns;
  Informer informer(*client, RealClock::Instance(), options);
  std::mutex mu;
  std::vector<std::string> log;
  auto add = [&](std::string line) {
    std::lock_guard<std::mutex> l(mu);
    log.push_back(std::move(line));
  };
  auto seen = [&](const std::string& line) {
    std::lock_guard<std::mutex> l(mu);
    return std::find(log.begin(), log.end(), line) != log.end();
  };
  informer.AddEventHandler({[&](const ObjectPtr& o) { add("add " + std::string(o->Name())); },
                            nullptr,
                            [&](const ObjectPtr& o) { add("delete " + std::string(o->Name())); }});
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(RealClock::Instance().Now() + std::chrono::seconds(30)));

  // Compact etcd, then restart the apiserver: its new watch cache no longer holds the informer's
  // resourceVersion. Change objects before the informer is back.
  ASSERT_EQ(rdmastack::testing::RunCommand({env->cluster_script, "compact"}).exit_code, 0);
  ASSERT_EQ(
      rdmastack::testing::RunCommand({env->cluster_script, "restart", "kube-apiserver"}).exit_code,
      0);
  ASSERT_EQ(env->Kubectl({"-n", ns, "delete", "configmap", "gone"}).exit_code, 0);
  ASSERT_EQ(env->Kubectl({"-n", ns, "create", "configmap", "new"}).exit_code, 0);

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (std::chrono::steady_clock::now() < deadline && !(seen("delete gone") && seen("add new"))) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(seen("delete gone"));
  EXPECT_TRUE(seen("add new"));

  const auto [cached, listed] = integration::CompareCacheWithList(*client, ns, informer.store());
  EXPECT_EQ(cached, listed);
  std::printf("lists: %d (more than 1 = relisted after 410 or a broken watch)\n",
              informer.reflector().list_count());
  informer.Stop();
  integration::DeleteNamespace(*env, ns);
}

}  // namespace
}  // namespace rdmastack::runtime
