#include "operator/runtime/informer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "operator/runtime/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using ::testing::_;
using ::testing::Invoke;
using testing::MakeList;
using testing::MakeObject;
using ::testing::Return;

class InformerTest : public ::testing::Test {
 protected:
  InformerOptions Options() {
    InformerOptions o;
    o.reflector.initial_sync = ReflectorOptions::InitialSync::kWatchCacheList;  // the mocks list
    o.type = k8s::kinds::ConfigMap();
    o.ns = "ns";
    return o;
  }
  // Handler that logs events; thread-safe.
  EventHandler Logger(std::string tag) {
    EventHandler h;
    h.on_add = [this, tag](const ObjectPtr& o) { Log(tag + " add " + std::string(o->Name())); };
    h.on_update = [this, tag](const ObjectPtr& old, const ObjectPtr& cur) {
      Log(tag + " update " + std::string(cur->Name()) + " " + std::string(old->ResourceVersion()) +
          "->" + std::string(cur->ResourceVersion()));
    };
    h.on_delete = [this, tag](const ObjectPtr& o) {
      Log(tag + " delete " + std::string(o->Name()));
    };
    return h;
  }
  void Log(std::string line) {
    std::lock_guard<std::mutex> l(mu_);
    log_.push_back(std::move(line));
    cv_.notify_all();
  }
  std::vector<std::string> WaitForLog(size_t n) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return log_.size() >= n; });
    return log_;
  }

  FakeClock clock_;
  ::testing::NiceMock<testing::MockClient> client_;
  testing::WatchFeed feed_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> log_;
};

TEST_F(InformerTest, DeliversAddUpdateDeleteInOrderAndKeepsTheCache) {
  EXPECT_CALL(client_, List(_, _, _)).WillOnce(Return(MakeList({MakeObject("ns", "a", "1")}, "5")));
  EXPECT_CALL(client_, Watch(_, _, _)).WillRepeatedly(Invoke([&](auto&&...) {
    return feed_.NewStream();
  }));
  Informer informer(client_, clock_, Options());
  informer.AddEventHandler(Logger("h"));
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(clock_.Now() + std::chrono::hours(1)));
  feed_.Push(k8s::WatchEventType::kAdded, MakeObject("ns", "b", "6"));
  feed_.Push(k8s::WatchEventType::kModified, MakeObject("ns", "a", "7"));
  feed_.Push(k8s::WatchEventType::kDeleted, MakeObject("ns", "b", "8"));
  EXPECT_EQ(WaitForLog(4),
            (std::vector<std::string>{"h add a", "h add b", "h update a 1->7", "h delete b"}));
  informer.Stop();
  EXPECT_EQ(informer.store().ListKeys(), std::vector<std::string>{"ns/a"});
  EXPECT_EQ(informer.store().Get("ns/a")->ResourceVersion(), "7");
}

TEST_F(InformerTest, LateHandlerGetsTheCachedObjectsFirst) {
  EXPECT_CALL(client_, List(_, _, _))
      .WillOnce(Return(MakeList({MakeObject("ns", "a", "1"), MakeObject("ns", "b", "1")}, "5")));
  EXPECT_CALL(client_, Watch(_, _, _)).WillRepeatedly(Invoke([&](auto&&...) {
    return feed_.NewStream();
  }));
  Informer informer(client_, clock_, Options());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(clock_.Now() + std::chrono::hours(1)));
  informer.AddEventHandler(Logger("late"));
  feed_.Push(k8s::WatchEventType::kAdded, MakeObject("ns", "c", "6"));
  EXPECT_EQ(WaitForLog(3), (std::vector<std::string>{"late add a", "late add b", "late add c"}));
  informer.Stop();
}

TEST_F(InformerTest, RelistSynthesizesDeletesForVanishedObjects) {
  ::testing::InSequence seq;
  EXPECT_CALL(client_, List(_, _, _))
      .WillOnce(Return(MakeList({MakeObject("ns", "a", "1"), MakeObject("ns", "b", "1")}, "5")));
  EXPECT_CALL(client_, Watch(_, _, _)).WillOnce(Invoke([&](auto&&...) {
    return feed_.NewStream();
  }));
  EXPECT_CALL(client_, List(_, _, _)).WillOnce(Return(MakeList({MakeObject("ns", "a", "2")}, "9")));
  EXPECT_CALL(client_, Watch(_, _, _)).WillRepeatedly(Invoke([&](auto&&...) {
    return feed_.NewStream();
  }));
  InformerOptions o = Options();
  o.reflector.uniform = [] { return 0.0; };
  Informer informer(client_, clock_, o);
  informer.AddEventHandler(Logger("h"));
  informer.Start();
  WaitForLog(2);
  feed_.Fail(UnavailableError("connection reset"));
  // The relist happens after the 800 ms backoff.
  std::thread advancer([&] {
    while (informer.reflector().list_count() < 2) {
      clock_.Advance(std::chrono::milliseconds(100));
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  EXPECT_EQ(WaitForLog(4),
            (std::vector<std::string>{"h add a", "h add b", "h delete b", "h update a 1->2"}));
  advancer.join();
  informer.Stop();
}

TEST_F(InformerTest, TransformTrimsCachedObjects) {
  k8s::JsonObject node = MakeObject("", "node-1", "1");
  (void)node.SetString({"status", "nodeInfo", "kubeletVersion"}, "v1.36.3");
  (void)node.SetString({"status", "images", "0"}, "huge");
  node.SetLabel("kubernetes.io/hostname", "node-1");
  (void)node.SetString({"metadata", "managedFields"}, "big");
  EXPECT_CALL(client_, List(_, _, _)).WillOnce(Return(MakeList({node}, "5")));
  EXPECT_CALL(client_, Watch(_, _, _)).WillRepeatedly(Invoke([&](auto&&...) {
    return feed_.NewStream();
  }));
  InformerOptions o;
  o.reflector.initial_sync = ReflectorOptions::InitialSync::kWatchCacheList;  // the mocks list
  o.type = k8s::kinds::Node();
  o.transform = TrimToFields({{"metadata", "labels"}, {"status", "nodeInfo", "kubeletVersion"}});
  Informer informer(client_, clock_, o);
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(clock_.Now() + std::chrono::hours(1)));
  informer.Stop();
  ObjectPtr cached = informer.store().Get("node-1");
  ASSERT_NE(cached, nullptr);
  EXPECT_EQ(cached->GetString({"status", "nodeInfo", "kubeletVersion"}), "v1.36.3");
  EXPECT_EQ(cached->Label("kubernetes.io/hostname"), "node-1");
  EXPECT_EQ(cached->Uid(), "uid-node-1");
  EXPECT_EQ(cached->ResourceVersion(), "1");
  EXPECT_FALSE(cached->Has({"status", "images"}));
  EXPECT_FALSE(cached->Has({"metadata", "managedFields"}));
}

TEST_F(InformerTest, CacheSharesOneInformerPerIdentity) {
  InformerCache cache(client_, clock_);
  Informer& a = cache.Get(Options());
  Informer& b = cache.Get(Options());
  InformerOptions other = Options();
  other.label_selector = "app=x";
  Informer& c = cache.Get(other);
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &c);
}

}  // namespace
}  // namespace rdmastack::runtime
