#include "operator/runtime/reflector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using ::testing::_;
using k8s::testing::ApiStatus;
using ::testing::Field;
using ::testing::Invoke;
using k8s::testing::MakeList;
using k8s::testing::MakeObject;
using ::testing::Return;

// Records what the reflector tells its sink.
class RecordingSink : public ReflectorSink {
 public:
  ObjectPtr Prepare(k8s::JsonObject o) override {
    ++prepared;
    return std::make_shared<const k8s::JsonObject>(std::move(o));
  }
  void Replace(std::vector<ObjectPtr> objects, const std::string& rv) override {
    std::string line = "replace@" + rv + ":";
    for (const auto& o : objects) line += " " + std::string(o->Name());
    log.push_back(line);
  }
  void Upsert(ObjectPtr o) override {
    log.push_back("upsert " + std::string(o->Name()) + "@" + std::string(o->ResourceVersion()));
  }
  void Remove(ObjectPtr o) override { log.push_back("remove " + std::string(o->Name())); }
  std::vector<std::string> log;
  int prepared = 0;
};

class ReflectorTest : public ::testing::Test {
 protected:
  ReflectorOptions Options() {
    ReflectorOptions o;
    o.type = k8s::kinds::ConfigMap();
    o.ns = "ns";
    o.label_selector = "app=x";
    o.uniform = [] { return 0.5; };
    // The list-based tests; the watch-list ones switch this back.
    o.initial_sync = ReflectorOptions::InitialSync::kWatchCacheList;
    return o;
  }

  FakeClock clock_;
  ::testing::StrictMock<k8s::testing::MockClient> client_;
  k8s::testing::WatchFeed feed_;
  RecordingSink sink_;
};

k8s::JsonObject Bookmark(const std::string& rv) {
  k8s::JsonObject o;
  o.SetApiVersion("v1");
  o.SetKind("ConfigMap");
  o.SetResourceVersion(rv);
  return o;
}

k8s::JsonObject ExpiredStatusObject() {
  return k8s::JsonObject::
      Parse(R"json({"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 5 (20)","reason":"Expired","code":410})json")
          .value();
}

TEST_F(ReflectorTest, ListsThenWatchesFromTheListVersionAndFollowsEvents) {
  Reflector r(client_, clock_, Options(), sink_);
  EXPECT_CALL(client_, List(_, "ns",
                            AllOf(Field(&k8s::ListOptions::resource_version, "0"),
                                  Field(&k8s::ListOptions::label_selector, "app=x"),
                                  Field(&k8s::ListOptions::limit, 500))))
      .WillOnce(Return(MakeList({MakeObject("ns", "a", "3"), MakeObject("ns", "b", "4")}, "10")));
  // First watch from the list RV; after a clean end, the next from the bookmark's RV.
  EXPECT_CALL(client_, Watch(_, "ns",
                             AllOf(Field(&k8s::WatchOptions::resource_version, "10"),
                                   Field(&k8s::WatchOptions::allow_watch_bookmarks, true),
                                   Field(&k8s::WatchOptions::timeout_seconds, 450))))
      .WillOnce(Invoke([&](auto&&...) { return feed_.NewStream(); }));
  EXPECT_CALL(client_, Watch(_, "ns", Field(&k8s::WatchOptions::resource_version, "15")))
      .WillOnce(Invoke([&](auto&&...) { return feed_.NewStream(); }));

  feed_.Push(k8s::WatchEventType::kAdded, MakeObject("ns", "c", "11"));
  feed_.Push(k8s::WatchEventType::kModified, MakeObject("ns", "a", "12"));
  feed_.Push(k8s::WatchEventType::kDeleted, MakeObject("ns", "b", "13"));
  feed_.Push(k8s::WatchEventType::kBookmark, Bookmark("15"));
  feed_.End();  // server timeout: re-watch, no relist
  feed_.Push(k8s::WatchEventType::kError, ExpiredStatusObject());

  const Status s = r.ListAndWatch();
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.ToString();  // 410 -> back to a list
  EXPECT_EQ(sink_.log, (std::vector<std::string>{"replace@10: a b", "upsert c@11", "upsert a@12",
                                                 "remove b"}));
  EXPECT_EQ(r.LastSyncResourceVersion(), "15");
  EXPECT_EQ(r.list_count(), 1);
}

TEST_F(ReflectorTest, RelistUsesTheLastVersionAndFallsBackToAConsistentReadWhenExpired) {
  Reflector r(client_, clock_, Options(), sink_);
  ::testing::InSequence seq;
  EXPECT_CALL(client_, List(_, _, Field(&k8s::ListOptions::resource_version, "0")))
      .WillOnce(Return(MakeList({}, "10")));
  EXPECT_CALL(client_, Watch(_, _, _))
      .WillOnce(Return(ApiStatus(410, "Expired", "too old resource version")));
  EXPECT_CALL(client_, List(_, _,
                            AllOf(Field(&k8s::ListOptions::resource_version, "10"),
                                  Field(&k8s::ListOptions::limit, 0))))
      .WillOnce(Return(ApiStatus(410, "Expired", "too old resource version")));
  EXPECT_CALL(client_, List(_, _, Field(&k8s::ListOptions::resource_version, "")))
      .WillOnce(Return(MakeList({MakeObject("ns", "z", "30")}, "30")));
  EXPECT_CALL(client_, Watch(_, _, Field(&k8s::WatchOptions::resource_version, "30")))
      .WillOnce(Return(ApiStatus(500, "InternalError", "boom")));

  EXPECT_FALSE(r.ListAndWatch().ok());
  EXPECT_EQ(r.ListAndWatch().code(), StatusCode::kInternal);
  EXPECT_EQ(r.list_count(), 2);
  EXPECT_EQ(sink_.log.back(), "replace@30: z");
}

TEST_F(ReflectorTest, PagedConsistentListTransformsEachPageAndFollowsContinueTokens) {
  ReflectorOptions o = Options();
  o.initial_sync = ReflectorOptions::InitialSync::kPagedList;
  o.page_size = 2;
  int transformed = 0;
  o.transform = [&](k8s::JsonObject obj) {
    ++transformed;
    obj.SetLabel("trimmed", "yes");
    return obj;
  };
  Reflector r(client_, clock_, o, sink_);
  auto page = [](std::vector<k8s::JsonObject> items, const std::string& rv,
                 const std::string& next) {
    k8s::ObjectList l = MakeList(std::move(items), rv);
    l.continue_token = next;
    return l;
  };
  ::testing::InSequence seq;
  EXPECT_CALL(client_, List(_, _,
                            AllOf(Field(&k8s::ListOptions::resource_version, ""),
                                  Field(&k8s::ListOptions::continue_token, ""),
                                  Field(&k8s::ListOptions::limit, 2))))
      .WillOnce(Invoke([&](auto&&...) {
        EXPECT_EQ(transformed, 0);
        return page({MakeObject("ns", "a", "1"), MakeObject("ns", "b", "2")}, "20", "tok1");
      }));
  EXPECT_CALL(client_, List(_, _,
                            AllOf(Field(&k8s::ListOptions::resource_version, ""),
                                  Field(&k8s::ListOptions::continue_token, "tok1"))))
      .WillOnce(Invoke([&](auto&&...) {
        EXPECT_EQ(transformed, 2);  // the first page was transformed before the second arrived
        return page({MakeObject("ns", "c", "3")}, "20", "");
      }));
  EXPECT_CALL(client_, Watch(_, _, Field(&k8s::WatchOptions::resource_version, "20")))
      .WillOnce(Invoke([&](auto&&...) { return feed_.NewStream(); }));
  feed_.Push(k8s::WatchEventType::kAdded, MakeObject("ns", "d", "21"));
  feed_.Push(k8s::WatchEventType::kError, ExpiredStatusObject());
  EXPECT_EQ(r.ListAndWatch().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(sink_.log, (std::vector<std::string>{"replace@20: a b c", "upsert d@21"}));
  EXPECT_EQ(transformed, 4);
}

TEST_F(ReflectorTest, ListFailureIsReturnedWithContext) {
  Reflector r(client_, clock_, Options(), sink_);
  EXPECT_CALL(client_, List(_, _, _)).WillOnce(Return(ApiStatus(403, "Forbidden", "no list")));
  const Status s = r.ListAndWatch();
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find("list configmaps"), std::string::npos) << s.message();
  EXPECT_TRUE(sink_.log.empty());
}

TEST_F(ReflectorTest, RunBacksOffBetweenFailuresAndStopEndsIt) {
  ReflectorOptions o = Options();
  o.uniform = [] { return 0.0; };
  Reflector r(client_, clock_, o, sink_);
  std::mutex mu;
  std::vector<Clock::TimePoint> attempts;
  EXPECT_CALL(client_, List(_, _, _))
      .WillRepeatedly(Invoke([&](auto&&...) -> StatusOr<k8s::ObjectList> {
        std::lock_guard<std::mutex> l(mu);
        attempts.push_back(clock_.Now());
        return UnavailableError("connection refused");
      }));
  std::thread runner([&] { r.Run(); });
  // Time stands still until the runner sleeps out its first backoff, then moves in 100 ms steps,
  // each seen by the runner before the next; each attempt waits out its backoff (800 ms, then
  // 1600 ms) exactly.
  ASSERT_TRUE(clock_.AdvanceAndWaitForSleeper(Clock::Duration::zero()));
  while (true) {
    {
      std::lock_guard<std::mutex> l(mu);
      if (attempts.size() >= 3) break;
    }
    ASSERT_TRUE(clock_.AdvanceAndWaitForSleeper(std::chrono::milliseconds(100)));
  }
  r.Stop();
  runner.join();
  EXPECT_EQ(attempts[1] - attempts[0], std::chrono::milliseconds(800));
  EXPECT_EQ(attempts[2] - attempts[1], std::chrono::milliseconds(1600));
}

// Runs `r` on its own thread, moving the fake clock in 100 ms steps until `done` (or a fake
// minute), then stops it.
void RunUntil(Reflector& r, FakeClock& clock, const std::function<bool()>& done) {
  std::thread runner([&] { r.Run(); });
  for (int step = 0; !done() && step < 600; ++step) {
    (void)clock.AdvanceAndWaitForSleeper(std::chrono::milliseconds(100),
                                         std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(done()) << "not done after a minute of fake time";
  r.Stop();
  runner.join();
}

TEST_F(ReflectorTest, ABrokenOrRefusedWatchResumesFromTheLastVersionWithoutARelist) {
  ReflectorOptions o = Options();
  o.uniform = [] { return 0.0; };
  Reflector r(client_, clock_, o, sink_);
  std::atomic<bool> resumed{false};
  ::testing::InSequence seq;
  EXPECT_CALL(client_, List(_, _, _)).WillOnce(Return(MakeList({}, "10")));
  EXPECT_CALL(client_, Watch(_, _, Field(&k8s::WatchOptions::resource_version, "10")))
      .WillOnce(Invoke([&](auto&&...) { return feed_.NewStream(); }));
  // The API server restarts: the stream breaks, the next attempt finds nobody listening, then a
  // 429 while it warms up; each is retried from the version the broken stream reached.
  EXPECT_CALL(client_, Watch(_, _, Field(&k8s::WatchOptions::resource_version, "12")))
      .WillOnce(Return(UnavailableError("connect to 127.0.0.1:6443 failed: Connection refused")))
      .WillOnce(Return(ApiStatus(429, "TooManyRequests", "slow down")))
      .WillOnce(Invoke([&](auto&&...) {
        resumed = true;
        return feed_.NewStream();
      }));
  feed_.Push(k8s::WatchEventType::kAdded, MakeObject("ns", "a", "12"));
  feed_.Fail(UnavailableError("watch stream broke: end of stream"));

  RunUntil(r, clock_, [&] { return resumed.load(); });
  EXPECT_EQ(r.list_count(), 1);
  EXPECT_EQ(sink_.log, (std::vector<std::string>{"replace@10:", "upsert a@12"}));
}

TEST_F(ReflectorTest, AWatchRefusedByTheServerForAnotherReasonRelists) {
  ReflectorOptions o = Options();
  o.uniform = [] { return 0.0; };
  Reflector r(client_, clock_, o, sink_);
  std::atomic<bool> relisted{false};
  ::testing::InSequence seq;
  EXPECT_CALL(client_, List(_, _, _)).WillOnce(Return(MakeList({}, "10")));
  // A 503 answer is the server's own (not a lost connection): client-go relists, and so do we.
  EXPECT_CALL(client_, Watch(_, _, Field(&k8s::WatchOptions::resource_version, "10")))
      .WillOnce(Return(ApiStatus(503, "ServiceUnavailable", "not ready")));
  EXPECT_CALL(client_, List(_, _, Field(&k8s::ListOptions::resource_version, "10")))
      .WillOnce(Invoke([&](auto&&...) {
        relisted = true;
        return MakeList({}, "11");
      }));
  EXPECT_CALL(client_, Watch(_, _, Field(&k8s::WatchOptions::resource_version, "11")))
      .WillRepeatedly(Invoke([&](auto&&...) { return feed_.NewStream(); }));

  RunUntil(r, clock_, [&] { return relisted.load(); });
  EXPECT_EQ(r.list_count(), 2);
}

TEST_F(ReflectorTest, StopCancelsAnOpenWatch) {
  Reflector r(client_, clock_, Options(), sink_);
  EXPECT_CALL(client_, List(_, _, _)).WillOnce(Return(MakeList({}, "1")));
  std::atomic<bool> watching{false};
  EXPECT_CALL(client_, Watch(_, _, _)).WillOnce(Invoke([&](auto&&...) {
    watching = true;
    return feed_.NewStream();
  }));
  std::thread runner([&] { r.Run(); });
  while (!watching.load()) std::this_thread::yield();
  r.Stop();
  runner.join();
  EXPECT_EQ(r.list_count(), 1);
}

TEST_F(ReflectorTest, ARequestedRelistEndsTheWatchAndListsAgainAtOnce) {
  ReflectorOptions o = Options();
  int lists_begun = 0;
  o.before_list = [&] { ++lists_begun; };
  Reflector r(client_, clock_, o, sink_);
  std::atomic<int> watches{0};
  ::testing::InSequence seq;
  EXPECT_CALL(client_, List(_, _, _))
      .WillOnce(Return(MakeList({MakeObject("ns", "a", "3")}, "10")));
  EXPECT_CALL(client_, Watch(_, _, Field(&k8s::WatchOptions::resource_version, "10")))
      .WillOnce(Invoke([&](auto&&...) {
        ++watches;
        return feed_.NewStream();
      }));
  EXPECT_CALL(client_, List(_, _, Field(&k8s::ListOptions::resource_version, "10")))
      .WillOnce(Return(MakeList({MakeObject("ns", "a", "3")}, "11")));
  EXPECT_CALL(client_, Watch(_, _, Field(&k8s::WatchOptions::resource_version, "11")))
      .WillOnce(Invoke([&](auto&&...) {
        ++watches;
        return feed_.NewStream();
      }));
  std::thread runner([&] { r.Run(); });
  while (watches.load() < 1) std::this_thread::yield();
  r.RequestRelist();
  // The fake clock never moves: a relist behind a backoff would never come.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (watches.load() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  r.Stop();
  runner.join();
  EXPECT_EQ(watches.load(), 2);
  EXPECT_EQ(r.list_count(), 2);
  EXPECT_EQ(lists_begun, 2);
  EXPECT_EQ(sink_.log, (std::vector<std::string>{"replace@10: a", "replace@11: a"}));
}

k8s::JsonObject InitialEventsEnd(const std::string& rv) {
  k8s::JsonObject o = Bookmark(rv);
  o.SetAnnotation("k8s.io/initial-events-end", "true");
  return o;
}

class WatchListTest : public ReflectorTest {
 protected:
  ReflectorOptions WatchListOptions() {
    ReflectorOptions o = Options();
    o.initial_sync = ReflectorOptions::InitialSync::kWatchList;
    return o;
  }
};

TEST_F(WatchListTest, InitialEventsBecomeOneReplaceAndTheSameStreamGoesOn) {
  ReflectorOptions o = WatchListOptions();
  int transformed = 0;
  o.transform = [&](k8s::JsonObject obj) {
    // Each object went to the sink's Prepare before the next one arrived, not at the bookmark.
    EXPECT_EQ(sink_.prepared, transformed);
    ++transformed;
    return obj;
  };
  Reflector r(client_, clock_, o, sink_);
  ::testing::InSequence seq;
  EXPECT_CALL(client_,
              Watch(_, "ns",
                    AllOf(Field(&k8s::WatchOptions::send_initial_events, true),
                          Field(&k8s::WatchOptions::resource_version_match, "NotOlderThan"),
                          Field(&k8s::WatchOptions::resource_version, ""),
                          Field(&k8s::WatchOptions::allow_watch_bookmarks, true),
                          Field(&k8s::WatchOptions::label_selector, "app=x"))))
      .WillOnce(Invoke([&](auto&&...) { return feed_.NewStream(); }));
  // After the stream's clean end: an ordinary watch from the last version seen.
  EXPECT_CALL(client_, Watch(_, "ns",
                             AllOf(Field(&k8s::WatchOptions::send_initial_events, false),
                                   Field(&k8s::WatchOptions::resource_version, "12"))))
      .WillOnce(Invoke([&](auto&&...) { return feed_.NewStream(); }));

  feed_.Push(k8s::WatchEventType::kAdded, MakeObject("ns", "a", "3"));
  feed_.Push(k8s::WatchEventType::kBookmark, Bookmark("7"));  // progress, not the end
  feed_.Push(k8s::WatchEventType::kAdded, MakeObject("ns", "b", "4"));
  feed_.Push(k8s::WatchEventType::kBookmark, InitialEventsEnd("10"));
  feed_.Push(k8s::WatchEventType::kModified, MakeObject("ns", "a", "12"));
  feed_.End();
  feed_.Push(k8s::WatchEventType::kError, ExpiredStatusObject());

  EXPECT_EQ(r.ListAndWatch().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(sink_.log, (std::vector<std::string>{"replace@10: a b", "upsert a@12"}));
  EXPECT_EQ(transformed, 3);
  EXPECT_EQ(sink_.prepared, 3);
  EXPECT_EQ(r.list_count(), 1);
}

TEST_F(WatchListTest, StreamEndingBeforeTheInitialEventsEndPublishesNothing) {
  Reflector r(client_, clock_, WatchListOptions(), sink_);
  EXPECT_CALL(client_, Watch(_, _, Field(&k8s::WatchOptions::send_initial_events, true)))
      .WillOnce(Invoke([&](auto&&...) { return feed_.NewStream(); }));
  feed_.Push(k8s::WatchEventType::kAdded, MakeObject("ns", "a", "3"));
  feed_.End();
  const Status s = r.ListAndWatch();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find("before the initial events were complete"), std::string::npos);
  EXPECT_TRUE(sink_.log.empty());
  EXPECT_EQ(r.list_count(), 0);
}

TEST_F(WatchListTest, AStreamBrokenAfterTheInitialEventsResumesAsAPlainWatch) {
  ReflectorOptions o = WatchListOptions();
  o.uniform = [] { return 0.0; };
  Reflector r(client_, clock_, o, sink_);
  std::atomic<bool> resumed{false};
  ::testing::InSequence seq;
  EXPECT_CALL(client_, Watch(_, _, Field(&k8s::WatchOptions::send_initial_events, true)))
      .WillOnce(Invoke([&](auto&&...) { return feed_.NewStream(); }));
  EXPECT_CALL(client_, Watch(_, _,
                             AllOf(Field(&k8s::WatchOptions::send_initial_events, false),
                                   Field(&k8s::WatchOptions::resource_version, "12"))))
      .WillOnce(Invoke([&](auto&&...) {
        resumed = true;
        return feed_.NewStream();
      }));
  feed_.Push(k8s::WatchEventType::kAdded, MakeObject("ns", "a", "3"));
  feed_.Push(k8s::WatchEventType::kBookmark, InitialEventsEnd("10"));
  feed_.Push(k8s::WatchEventType::kModified, MakeObject("ns", "a", "12"));
  feed_.Fail(UnavailableError("watch stream broke: end of stream"));

  RunUntil(r, clock_, [&] { return resumed.load(); });
  EXPECT_EQ(r.list_count(), 1);
  EXPECT_EQ(sink_.log, (std::vector<std::string>{"replace@10: a", "upsert a@12"}));
}

TEST_F(WatchListTest, ServerWithoutWatchListIsListedInsteadFromThenOn) {
  Reflector r(client_, clock_, WatchListOptions(), sink_);
  ::testing::InSequence seq;
  EXPECT_CALL(client_, Watch(_, _, Field(&k8s::WatchOptions::send_initial_events, true)))
      .WillOnce(Return(ApiStatus(422, "Invalid", "sendInitialEvents is forbidden for watch")));
  EXPECT_CALL(client_, List(_, _, Field(&k8s::ListOptions::resource_version, "0")))
      .WillOnce(Return(MakeList({MakeObject("ns", "a", "3")}, "10")));
  EXPECT_CALL(client_, Watch(_, _,
                             AllOf(Field(&k8s::WatchOptions::send_initial_events, false),
                                   Field(&k8s::WatchOptions::resource_version, "10"))))
      .WillOnce(Return(ApiStatus(500, "InternalError", "boom")));
  // The next cycle does not ask for watch-list again.
  EXPECT_CALL(client_, List(_, _, Field(&k8s::ListOptions::resource_version, "10")))
      .WillOnce(Return(MakeList({}, "11")));
  EXPECT_CALL(client_, Watch(_, _, Field(&k8s::WatchOptions::resource_version, "11")))
      .WillOnce(Return(ApiStatus(500, "InternalError", "boom")));

  EXPECT_TRUE(r.UsesWatchList());
  EXPECT_EQ(r.ListAndWatch().code(), StatusCode::kInternal);
  EXPECT_FALSE(r.UsesWatchList());
  EXPECT_EQ(r.ListAndWatch().code(), StatusCode::kInternal);
  EXPECT_EQ(sink_.log, (std::vector<std::string>{"replace@10: a", "replace@11:"}));
}

TEST_F(WatchListTest, RestartIsNotOlderThanTheLastVersionOrAConsistentReadOnceExpired) {
  Reflector r(client_, clock_, WatchListOptions(), sink_);
  ::testing::InSequence seq;
  EXPECT_CALL(client_, Watch(_, _, Field(&k8s::WatchOptions::resource_version, "")))
      .WillOnce(Invoke([&](auto&&...) { return feed_.NewStream(); }));
  EXPECT_CALL(client_, Watch(_, _,
                             AllOf(Field(&k8s::WatchOptions::send_initial_events, true),
                                   Field(&k8s::WatchOptions::resource_version, "10"))))
      .WillOnce(Return(ApiStatus(410, "Expired", "too old resource version")));
  EXPECT_CALL(client_, Watch(_, _,
                             AllOf(Field(&k8s::WatchOptions::send_initial_events, true),
                                   Field(&k8s::WatchOptions::resource_version, ""))))
      .WillOnce(Return(ApiStatus(500, "InternalError", "boom")));

  feed_.Push(k8s::WatchEventType::kBookmark, InitialEventsEnd("10"));
  feed_.Push(k8s::WatchEventType::kError, ExpiredStatusObject());
  EXPECT_EQ(r.ListAndWatch().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(r.ListAndWatch().code(), StatusCode::kInternal);
  EXPECT_EQ(sink_.log, (std::vector<std::string>{"replace@10:"}));
}

}  // namespace
}  // namespace rdmastack::runtime
