#include "operator/runtime/informer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <future>

#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using ::testing::_;
using ::testing::Invoke;
using k8s::testing::MakeList;
using k8s::testing::MakeObject;
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

  // Runs `fn` on its own thread and waits for it. A deadlock cannot be cleaned up after (the
  // stuck threads hold the informer), so after 60 s the test binary exits with a failure instead
  // of hanging until ctest's timeout.
  static void MustFinish(const char* what, std::function<void()> fn) {
    std::packaged_task<void()> task(std::move(fn));
    auto done = task.get_future();
    std::thread runner(std::move(task));
    if (done.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
      std::fprintf(stderr, "FAILED: %s did not return within 60 s: deadlock\n", what);
      std::fflush(stderr);
      std::_Exit(1);
    }
    runner.join();
    done.get();
  }
  void ExpectWatchFromFeed() {
    EXPECT_CALL(client_, Watch(_, _, _)).WillRepeatedly(Invoke([&](auto&&...) {
      return feed_.NewStream();
    }));
  }

  FakeClock clock_;
  ::testing::NiceMock<k8s::testing::MockClient> client_;
  k8s::testing::WatchFeed feed_;
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
  // The server no longer has the watch's version; the relist happens after the 800 ms backoff.
  feed_.Fail(k8s::testing::ApiStatus(410, "Expired", "too old resource version"));
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

// client-go runs handlers outside every informer lock; a handler that registers another handler
// (a controller adding a watch when it sees an object) must not deadlock, and the new handler gets
// the cached objects first, then every later event.
TEST_F(InformerTest, HandlerMayAddAnotherHandlerFromInsideACallback) {
  EXPECT_CALL(client_, List(_, _, _)).WillOnce(Return(MakeList({MakeObject("ns", "a", "1")}, "5")));
  ExpectWatchFromFeed();
  Informer informer(client_, clock_, Options());
  EventHandler outer = Logger("outer");
  bool added = false;
  outer.on_add = [&](const ObjectPtr& o) {
    Log("outer add " + std::string(o->Name()));
    if (added) return;
    added = true;
    informer.AddEventHandler(Logger("inner"));
  };
  informer.AddEventHandler(outer);
  MustFinish("the first sync", [&] {
    informer.Start();
    ASSERT_TRUE(informer.WaitForSync(clock_.Now() + std::chrono::hours(1)));
  });
  feed_.Push(k8s::WatchEventType::kAdded, MakeObject("ns", "b", "6"));
  MustFinish("delivery after the nested registration", [&] { WaitForLog(4); });
  informer.Stop();
  EXPECT_EQ(log_,
            (std::vector<std::string>{"outer add a", "inner add a", "outer add b", "inner add b"}));
}

// A thread that holds a lock registers a handler while the informer's thread delivers an event to
// a handler that needs that lock (two controllers sharing state). Registration must not wait for
// the running handler.
TEST_F(InformerTest, RegisteringAHandlerDoesNotWaitForARunningHandler) {
  EXPECT_CALL(client_, List(_, _, _)).WillOnce(Return(MakeList({}, "5")));
  ExpectWatchFromFeed();
  Informer informer(client_, clock_, Options());
  std::mutex shared_state;
  std::promise<void> entered;
  EventHandler needs_lock;
  needs_lock.on_add = [&](const ObjectPtr& o) {
    entered.set_value();
    std::lock_guard<std::mutex> l(shared_state);
    Log("locked add " + std::string(o->Name()));
  };
  informer.AddEventHandler(needs_lock);
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(clock_.Now() + std::chrono::hours(1)));
  MustFinish("registration while a handler waits for the registering thread's lock", [&] {
    std::lock_guard<std::mutex> l(shared_state);
    feed_.Push(k8s::WatchEventType::kAdded, MakeObject("ns", "a", "6"));
    entered.get_future().wait();
    informer.AddEventHandler(Logger("late"));
  });
  MustFinish("delivery", [&] { WaitForLog(2); });
  informer.Stop();
  // The late handler registered after "a" was cached: it gets it in its startup batch.
  EXPECT_THAT(log_, ::testing::UnorderedElementsAre("locked add a", "late add a"));
}

// Handlers see the store as of the event they are given, and may read it and add indexes.
TEST_F(InformerTest, HandlersReadTheStoreAndAddIndexesFromInsideCallbacks) {
  EXPECT_CALL(client_, List(_, _, _)).WillOnce(Return(MakeList({MakeObject("ns", "a", "1")}, "5")));
  ExpectWatchFromFeed();
  Informer informer(client_, clock_, Options());
  auto cached_rv = [&](const ObjectPtr& o) {
    ObjectPtr cached = informer.store().Get(o->Key());
    return cached ? std::string(cached->ResourceVersion()) : std::string("absent");
  };
  EventHandler h;
  h.on_add = [&](const ObjectPtr& o) {
    if (o->Name() == "a") {
      ASSERT_TRUE(informer.AddIndex("by-ns", IndexByNamespace()).ok());
    }
    auto same_ns = informer.store().ByIndex("by-ns", "ns");
    Log("add " + std::string(o->Name()) + " cached " + cached_rv(o) + " in-ns " +
        std::to_string(same_ns.ok() ? same_ns->size() : 0));
  };
  h.on_update = [&](const ObjectPtr&, const ObjectPtr& o) {
    Log("update " + std::string(o->Name()) + " cached " + cached_rv(o));
  };
  h.on_delete = [&](const ObjectPtr& o) {
    Log("delete " + std::string(o->Name()) + " cached " + cached_rv(o));
  };
  informer.AddEventHandler(h);
  MustFinish("the first sync", [&] {
    informer.Start();
    ASSERT_TRUE(informer.WaitForSync(clock_.Now() + std::chrono::hours(1)));
  });
  feed_.Push(k8s::WatchEventType::kAdded, MakeObject("ns", "b", "6"));
  feed_.Push(k8s::WatchEventType::kModified, MakeObject("ns", "a", "7"));
  feed_.Push(k8s::WatchEventType::kDeleted, MakeObject("ns", "b", "8"));
  MustFinish("delivery", [&] { WaitForLog(4); });
  informer.Stop();
  EXPECT_EQ(log_, (std::vector<std::string>{"add a cached 1 in-ns 1", "add b cached 6 in-ns 2",
                                            "update a cached 7", "delete b cached absent"}));
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
