// An informer on ConfigMaps against the real API server: it sees add, update and delete, and its
// cache matches a fresh list afterwards.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "operator/runtime/informer.h"
#include "tests/integration/runtime/runtime_cluster.h"

namespace rdmastack::runtime {
namespace {

class EventLog {
 public:
  void Add(std::string line) {
    std::lock_guard<std::mutex> l(mu_);
    lines_.push_back(std::move(line));
    cv_.notify_all();
  }
  // Waits (real time) until `line` has been logged.
  bool WaitFor(const std::string& line, std::chrono::seconds timeout = std::chrono::seconds(30)) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(
        l, timeout, [&] { return std::find(lines_.begin(), lines_.end(), line) != lines_.end(); });
  }
  std::vector<std::string> Lines() {
    std::lock_guard<std::mutex> l(mu_);
    return lines_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
};

// Every way of fetching the state, against the real API server (1.36 serves watch-list).
class InformerIntegrationTest : public ::testing::TestWithParam<ReflectorOptions::InitialSync> {};

INSTANTIATE_TEST_SUITE_P(Sync, InformerIntegrationTest,
                         ::testing::Values(ReflectorOptions::InitialSync::kWatchList,
                                           ReflectorOptions::InitialSync::kWatchCacheList,
                                           ReflectorOptions::InitialSync::kPagedList),
                         [](const auto& info) {
                           switch (info.param) {
                             case ReflectorOptions::InitialSync::kWatchList: return "WatchList";
                             case ReflectorOptions::InitialSync::kWatchCacheList:
                               return "WatchCacheList";
                             case ReflectorOptions::InitialSync::kPagedList: return "PagedList";
                           }
                           return "Unknown";
                         });

TEST_P(InformerIntegrationTest, SeesAddUpdateDeleteAndMatchesAFreshList) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  auto client = integration::AdminClient(*env);
  ASSERT_NE(client, nullptr);
  const std::string ns = integration::CreateNamespace(*env, "rt-informer");
  ASSERT_EQ(
      env->Kubectl({"-n", ns, "create", "configmap", "before", "--from-literal=k=v"}).exit_code, 0);

  InformerOptions options;
  options.type = k8s::kinds::ConfigMap();
  options.ns = ns;
  options.reflector.initial_sync = GetParam();
  options.reflector.page_size = 1;  // the paged mode then really pages ("before" and one more)
  Informer informer(*client, RealClock::Instance(), options);
  EventLog log;
  informer.AddEventHandler(
      {[&](const ObjectPtr& o) { log.Add("add " + std::string(o->Name())); },
       [&](const ObjectPtr& old, const ObjectPtr& cur) {
         if (old->ResourceVersion() == cur->ResourceVersion()) return;
         log.Add("update " + std::string(cur->Name()) + " " +
                 cur->GetString({"data", "k"}).value_or(""));
       },
       [&](const ObjectPtr& o) { log.Add("delete " + std::string(o->Name())); }});
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(RealClock::Instance().Now() + std::chrono::seconds(30)));
  EXPECT_TRUE(log.WaitFor("add before"));

  ASSERT_EQ(env->Kubectl({"-n", ns, "create", "configmap", "a", "--from-literal=k=1"}).exit_code,
            0);
  ASSERT_EQ(env->Kubectl({"-n", ns, "create", "configmap", "b", "--from-literal=k=1"}).exit_code,
            0);
  EXPECT_TRUE(log.WaitFor("add a"));
  EXPECT_TRUE(log.WaitFor("add b"));
  ASSERT_EQ(env->Kubectl({"-n", ns, "patch", "configmap", "a", "--type=merge", "-p",
                          R"({"data":{"k":"2"}})"})
                .exit_code,
            0);
  EXPECT_TRUE(log.WaitFor("update a 2"));
  ASSERT_EQ(env->Kubectl({"-n", ns, "delete", "configmap", "b"}).exit_code, 0);
  EXPECT_TRUE(log.WaitFor("delete b"));

  // The cache now equals a fresh list: same keys, same resourceVersions.
  const auto [cached, listed] = integration::CompareCacheWithList(*client, ns, informer.store());
  EXPECT_EQ(cached, listed);
  EXPECT_EQ(cached.count(ns + "/a"), 1u);
  EXPECT_EQ(cached.count(ns + "/b"), 0u);
  EXPECT_EQ(informer.store().Get(ns + "/a")->GetString({"data", "k"}), "2");
  EXPECT_FALSE(informer.store().Get(ns + "/a")->Has({"metadata", "managedFields"}));
  EXPECT_EQ(informer.reflector().UsesWatchList(),
            GetParam() == ReflectorOptions::InitialSync::kWatchList);
  EXPECT_EQ(informer.reflector().list_count(), 1);
  informer.Stop();
  integration::DeleteNamespace(*env, ns);
}

}  // namespace
}  // namespace rdmastack::runtime
