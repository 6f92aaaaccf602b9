// The operator's Node cache keeps only the label keys some selector names (node_label_filter.h).
// Against the real API server: a pool selects nodes by one key while the cache drops the nodes'
// other labels; when the pool's selector moves to a dropped key, the Node informer re-lists once
// and the pool's status goes from the old selection to the new one with nothing in between (no
// status that counts the nodes as unselected while the cache lacked the key).
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "crds/types/kinds.h"
#include "tests/integration/rdmanode/node_controllers_run.h"

namespace rdmastack::rdmanode::integration {
namespace {

using namespace std::chrono_literals;
using ::rdmastack::testing::Eventually;

constexpr int kNodes = 30;
constexpr int kPadLabels = 60;

// Node i carries kPadLabels labels, `role: storage` when i < 10, `rack: r1` when 5 <= i < 20.
std::string NodesYaml(const std::string& prefix, const std::string& role, const std::string& rack) {
  std::string out;
  for (int i = 0; i < kNodes; ++i) {
    out += "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: " + prefix + "-" +
           std::to_string(i) + "\n  labels:\n";
    for (int p = 0; p < kPadLabels; ++p)
      out += "    pad-" + std::to_string(p) + ".example.com/k: v" + std::to_string(i) + "\n";
    if (i < 10) out += "    " + role + ": storage\n";
    if (i >= 5 && i < 20) out += "    " + rack + ": r1\n";
  }
  return out;
}

std::optional<int64_t> Selected(const k8s::JsonObject& pool) {
  return pool.GetInt({"status", "nodeCounts", "selected"});
}

TEST(NodeCacheIntegrationTest, ASelectorMovingToADroppedKeyWaitsForOneRelist) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  RequireCrds(*env);
  const std::string ns = ::rdmastack::testing::UniqueName("nodecache");
  ASSERT_EQ(env->Kubectl({"create", "namespace", ns}).exit_code, 0);
  const std::string role = "role." + ns + ".example.com/tier";
  const std::string rack = "rack." + ns + ".example.com/rack";
  ASSERT_EQ(env->Kubectl({"apply", "-f", "-"}, NodesYaml(ns, role, rack)).exit_code, 0);
  // Whatever the outcome (after the controllers stopped): the pool without its finalizer, the
  // namespace, the nodes.
  struct Cleanup {
    const ::rdmastack::testing::ClusterEnv& env;
    std::string ns;
    ~Cleanup() {
      (void)env.Kubectl({"patch", "gwp", "kv", "-n", ns, "--type=merge", "-p",
                         R"({"metadata":{"finalizers":null}})"});
      (void)env.Kubectl({"delete", "namespace", ns, "--wait=false"});
      std::vector<std::string> del = {"delete", "node", "--wait=false"};
      for (int i = 0; i < kNodes; ++i) del.push_back(ns + "-" + std::to_string(i));
      (void)env.Kubectl(del);
    }
  } cleanup{*env, ns};
  NodeControllersRun run(*env, "nodecache", 60s, {}, /*gateway_pools=*/true);
  ASSERT_TRUE(run.ready());
  controllers::NodeCache& cache = run.controllers().node_cache();

  // A pool selecting on `role`: its 10 nodes, from a cache that holds `role` and not `rack`.
  ASSERT_EQ(env->Kubectl({"apply", "-n", ns, "-f", "-"}, PoolYaml("kv", role, "storage")).exit_code,
            0);
  k8s::JsonObject pool;
  ASSERT_TRUE(Eventually(
      [&] {
        auto got = run.client().Get(crd::kinds::GatewayPool(), ns, "kv");
        if (!got.ok()) return false;
        pool = std::move(*got);
        return Selected(pool) == 10;
      },
      60s))
      << pool.Serialize();
  const runtime::ObjectPtr node0 = cache.informer().store().Get(ns + "-0");
  ASSERT_NE(node0, nullptr);
  EXPECT_EQ(node0->Labels(), (std::map<std::string, std::string>{{role, "storage"}}))
      << "the cache keeps the selected key alone of the node's " << kPadLabels + 1 << " labels";
  EXPECT_EQ(cache.filter().Kept().count(rack), 0u);

  // Every status the pool has from here on, as the API server serves it.
  std::mutex mu;
  std::vector<std::optional<int64_t>> seen;
  k8s::WatchOptions wo;
  wo.field_selector = "metadata.name=kv";
  wo.resource_version = std::string(pool.ResourceVersion());
  auto stream = run.client().Watch(crd::kinds::GatewayPool(), ns, wo);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  std::thread watcher([&] {
    while (true) {
      auto next = (*stream)->Next();
      if (!next.ok() || !next->has_value()) return;
      if ((**next).type != k8s::WatchEventType::kModified) continue;
      std::lock_guard<std::mutex> l(mu);
      seen.push_back(Selected((**next).object));
    }
  });

  // The selector moves to `rack`, which no cached Node holds: one re-list, then its 15 nodes.
  const int lists_before = cache.informer().reflector().list_count();
  ASSERT_EQ(
      env->Kubectl({"patch", "gwp", "kv", "-n", ns, "--type=merge", "-p",
                    R"({"spec":{"nodeSelector":{")" + role + R"(":null,")" + rack + R"(":"r1"}}})"})
          .exit_code,
      0);
  EXPECT_TRUE(Eventually(
      [&] {
        std::lock_guard<std::mutex> l(mu);
        return !seen.empty() && seen.back() == 15;
      },
      60s));
  std::this_thread::sleep_for(3s);  // and nothing after it
  (*stream)->Cancel();
  watcher.join();
  EXPECT_EQ(cache.informer().reflector().list_count(), lists_before + 1);
  EXPECT_EQ(cache.informer().store().Get(ns + "-7")->Label(rack), "r1");
  {
    std::lock_guard<std::mutex> l(mu);
    ASSERT_FALSE(seen.empty());
    for (const auto& s : seen) {
      EXPECT_TRUE(s == 10 || s == 15) << "a status counted " << (s ? std::to_string(*s) : "no")
                                      << " selected nodes between the two selections";
    }
  }

  // While the controllers run, so that they take the pool's finalizer off themselves.
  EXPECT_EQ(env->Kubectl({"delete", "gwp", "kv", "-n", ns, "--timeout=60s"}).exit_code, 0);
}

}  // namespace
}  // namespace rdmastack::rdmanode::integration
