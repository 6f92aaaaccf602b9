#include "operator/runtime/event_recorder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/utf8.h"
#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using namespace std::chrono_literals;
using ::testing::_;
using k8s::testing::ApiStatus;
using ::testing::HasSubstr;
using ::testing::Invoke;
using ::testing::Return;

k8s::JsonObject Pool() {
  k8s::JsonObject o = k8s::testing::MakeObject("ns", "pool-a", "5");
  o.SetApiVersion("rdmastack.io/v1alpha1");
  o.SetKind("GatewayPool");
  return o;
}

EventRecorderOptions Options() {
  EventRecorderOptions o;
  o.reporting_controller = "rdmastack.io/operator";
  o.reporting_instance = "operator-0";
  return o;
}

TEST(EventObjectTest, HasTheEventsV1Shape) {
  EventRecord r;
  r.spec = {ObjectRefFor(Pool()), std::nullopt, "Warning",
            "DriverMissing",      "Verify",     std::string(2000, 'x')};
  r.name = "pool-a.1";
  r.event_time = Clock::WallTime{std::chrono::seconds(1'800'000'000)};
  r.series_count = 3;
  r.last_observed = r.event_time + std::chrono::seconds(5);
  const k8s::JsonObject o = EventObject(r, Options());
  EXPECT_EQ(o.ApiVersion(), "events.k8s.io/v1");
  EXPECT_EQ(o.Kind(), "Event");
  EXPECT_EQ(o.Namespace(), "ns");
  EXPECT_EQ(o.Name(), "pool-a.1");
  EXPECT_EQ(o.GetString({"eventTime"}), "2027-01-15T08:00:00.000000Z");
  EXPECT_EQ(o.GetString({"reportingController"}), "rdmastack.io/operator");
  EXPECT_EQ(o.GetString({"reportingInstance"}), "operator-0");
  EXPECT_EQ(o.GetString({"regarding", "kind"}), "GatewayPool");
  EXPECT_EQ(o.GetString({"regarding", "uid"}), "uid-pool-a");
  EXPECT_EQ(o.GetString({"type"}), "Warning");
  EXPECT_EQ(o.GetString({"note"})->size(), 1024u);
  EXPECT_EQ(o.GetInt({"series", "count"}), 3);
  EXPECT_EQ(o.GetString({"series", "lastObservedTime"}), "2027-01-15T08:00:05.000000Z");
}

// events.k8s.io refuses a note over 1024 bytes, counted after U+FFFD has replaced each byte
// outside UTF-8: a note cut inside a character would grow past the limit on the server.
TEST(EventObjectTest, ALongNoteIsCutOnACharacterAndStaysWithinTheLimit) {
  EventRecord r;
  std::string note;
  for (int i = 0; i < 700; ++i) note += "\xC3\xA9";  // é: 1400 bytes
  r.spec = {ObjectRefFor(Pool()), std::nullopt, "Warning", "GatewayFailing", "Verify", note};
  r.name = "pool-a.2";
  const std::string got = *EventObject(r, Options()).GetString({"note"});
  EXPECT_LE(got.size(), 1024u);
  EXPECT_TRUE(IsValidUtf8(got));
  EXPECT_LE(ValidUtf8(got).size(), 1024u);
  EXPECT_NE(got.find(" bytes cut)"), std::string::npos) << got;
}

TEST(EventObjectTest, ClusterScopedObjectsGetEventsInDefault) {
  EventRecord r;
  r.spec.regarding = {"v1", "Node", "", "node-1", "u"};
  const k8s::JsonObject o = EventObject(r, Options());
  EXPECT_EQ(o.Namespace(), "default");
  EXPECT_FALSE(o.Has({"regarding", "namespace"}));
  EXPECT_FALSE(o.Has({"series"}));
}

class ApiEventRecorderTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  ::testing::StrictMock<k8s::testing::MockClient> client_;
};

TEST_F(ApiEventRecorderTest, CreatesThenPatchesTheSeries) {
  std::string created_name;
  EXPECT_CALL(client_, Create(_, _, _))
      .WillOnce(Invoke([&](const auto&, const k8s::JsonObject& o, const auto&) {
        created_name = std::string(o.Name());
        EXPECT_FALSE(o.Has({"series"}));
        return o;
      }));
  EXPECT_CALL(client_, Patch(_, "ns", _, k8s::PatchType::kMerge, HasSubstr("\"count\":2"), _))
      .WillOnce(Invoke([&](const auto&, auto, std::string_view name, auto, auto, const auto&) {
        EXPECT_EQ(name, created_name);
        return StatusOr<k8s::JsonObject>(k8s::JsonObject());
      }));
  ApiEventRecorder recorder(client_, clock_, Options());
  recorder.Start();
  recorder.Record(Pool(), EventType::kWarning, "DriverMissing", "Verify",
                  "nvidia-peermem not loaded");
  recorder.Flush();
  recorder.Record(Pool(), EventType::kWarning, "DriverMissing", "Verify",
                  "nvidia-peermem not loaded");
  recorder.Record(Pool(), EventType::kWarning, "DriverMissing", "Verify",
                  "nvidia-peermem not loaded");
  recorder.Flush();
  recorder.Stop();
}

TEST_F(ApiEventRecorderTest, EventsRelatedToDifferentObjectsAreSeparate) {
  std::vector<std::string> related;
  EXPECT_CALL(client_, Create(_, _, _))
      .Times(2)
      .WillRepeatedly(Invoke([&](const auto&, const k8s::JsonObject& o, const auto&) {
        related.push_back(o.GetString({"related", "name"}).value_or(""));
        EXPECT_EQ(o.GetString({"regarding", "name"}), "pool-a");
        return o;
      }));
  ApiEventRecorder recorder(client_, clock_, Options());
  recorder.Start();
  k8s::JsonObject node_a = k8s::testing::MakeObject("", "node-a", "1"), node_b = node_a;
  node_a.SetKind("Node");
  node_b.SetKind("Node");
  node_b.SetName("node-b");
  recorder.RecordRelated(Pool(), node_a, EventType::kNormal, "UpgradeSwitch", "Upgrade", "a");
  recorder.RecordRelated(Pool(), node_b, EventType::kNormal, "UpgradeSwitch", "Upgrade", "b");
  recorder.Flush();
  recorder.Stop();
  EXPECT_EQ(related, (std::vector<std::string>{"node-a", "node-b"}));
}

TEST_F(ApiEventRecorderTest, PatchOfAVanishedEventCreatesItWithItsSeries) {
  ::testing::InSequence seq;
  EXPECT_CALL(client_, Create(_, _, _))
      .WillOnce(Invoke([](const auto&, const k8s::JsonObject& o, const auto&) { return o; }));
  EXPECT_CALL(client_, Patch(_, _, _, _, _, _))
      .WillOnce(Return(ApiStatus(404, "NotFound", "gone")));
  EXPECT_CALL(client_, Create(_, _, _))
      .WillOnce(Invoke([](const auto&, const k8s::JsonObject& o, const auto&) {
        EXPECT_EQ(o.GetInt({"series", "count"}), 2);
        return o;
      }));
  ApiEventRecorder recorder(client_, clock_, Options());
  recorder.Start();
  recorder.Record(Pool(), EventType::kNormal, "Upgraded", "Upgrade", "done");
  recorder.Record(Pool(), EventType::kNormal, "Upgraded", "Upgrade", "done");
  recorder.Flush();
  recorder.Stop();
}

TEST_F(ApiEventRecorderTest, RejectedEventIsNotRetriedButServerErrorsAre) {
  std::atomic<int> creates{0};
  EXPECT_CALL(client_, Create(_, _, _))
      .WillOnce(Invoke([&](auto&&...) -> StatusOr<k8s::JsonObject> {
        ++creates;
        return ApiStatus(403, "Forbidden", "cannot create events");
      }))
      .WillOnce(Invoke([&](auto&&...) -> StatusOr<k8s::JsonObject> {
        ++creates;
        return ApiStatus(503, "ServiceUnavailable", "try later");
      }))
      .WillOnce(Invoke(
          [&](const auto&, const k8s::JsonObject& o, const auto&) -> StatusOr<k8s::JsonObject> {
            ++creates;
            return o;
          }));
  ApiEventRecorder recorder(client_, clock_, Options());
  recorder.Start();
  recorder.Record(Pool(), EventType::kNormal, "A", "Act", "forbidden one");
  recorder.Flush();
  EXPECT_EQ(creates.load(), 1);
  recorder.Record(Pool(), EventType::kNormal, "B", "Act", "retried one");
  while (creates.load() < 2) std::this_thread::yield();
  // The retry waits 10 s of clock time.
  while (creates.load() < 3) {
    clock_.Advance(1s);
    std::this_thread::sleep_for(1ms);
  }
  recorder.Flush();
  recorder.Stop();
}

// A hanging API server holds the writer in its first write; events recorded meanwhile are kept
// only up to max_queued, the rest dropped and counted.
TEST_F(ApiEventRecorderTest, FullQueueDropsEventsAndCountsThem) {
  std::mutex mu;
  std::condition_variable cv;
  int creates = 0;
  bool server_hangs = true;
  std::vector<std::string> reasons;
  EXPECT_CALL(client_, Create(_, _, _))
      .WillRepeatedly(Invoke([&](const auto&, const k8s::JsonObject& o, const auto&) {
        std::unique_lock<std::mutex> l(mu);
        ++creates;
        reasons.push_back(o.GetString({"reason"}).value_or(""));
        cv.notify_all();
        cv.wait(l, [&] { return !server_hangs; });
        return StatusOr<k8s::JsonObject>(o);
      }));
  MetricsRegistry metrics;
  EventRecorderOptions options = Options();
  options.max_queued = 3;
  ApiEventRecorder recorder(client_, clock_, options, &metrics);
  recorder.Start();
  recorder.Record(Pool(), EventType::kNormal, "Reason0", "Act", "taken by the writer");
  {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return creates == 1; });
  }
  // Distinct reasons: ten separate events, none aggregated into a series.
  for (int i = 1; i <= 10; ++i) {
    recorder.Record(Pool(), EventType::kNormal, "Reason" + std::to_string(i), "Act", "queued?");
  }
  const std::string text = metrics.Render();
  EXPECT_NE(text.find("\nrdmastack_events_dropped_total 7\n"), std::string::npos) << text;
  {
    std::lock_guard<std::mutex> l(mu);
    server_hangs = false;
    cv.notify_all();
  }
  recorder.Flush();
  recorder.Stop();
  EXPECT_EQ(reasons, (std::vector<std::string>{"Reason0", "Reason1", "Reason2", "Reason3"}));
}

TEST_F(ApiEventRecorderTest, FinishedSeriesGetsItsFinalCountOnTheTick) {
  std::mutex mu;
  std::vector<int> patched_counts;
  auto count = [&] {
    std::lock_guard<std::mutex> l(mu);
    return patched_counts.size();
  };
  EXPECT_CALL(client_, Create(_, _, _))
      .WillOnce(Invoke([](const auto&, const k8s::JsonObject& o, const auto&) { return o; }));
  EXPECT_CALL(client_, Patch(_, _, _, _, _, _))
      .WillRepeatedly(Invoke([&](const auto&, auto, auto, auto, std::string_view body,
                                 const auto&) {
        auto patch = k8s::JsonObject::Parse(body).value();
        std::lock_guard<std::mutex> l(mu);
        patched_counts.push_back(static_cast<int>(patch.GetInt({"series", "count"}).value_or(-1)));
        return StatusOr<k8s::JsonObject>(k8s::JsonObject());
      }));
  ApiEventRecorder recorder(client_, clock_, Options());
  recorder.Start();
  for (int i = 0; i < 5; ++i) recorder.Record(Pool(), EventType::kWarning, "Flap", "Probe", "down");
  recorder.Flush();
  // Quiet for more than 6 minutes: the tick writes the final count (5).
  for (int i = 0; i < 8 * 60 && count() < 2; ++i) {
    clock_.Advance(1s);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    recorder.Flush();
  }
  recorder.Stop();
  EXPECT_EQ(patched_counts, (std::vector<int>{2, 5}));
}

}  // namespace
}  // namespace rdmastack::runtime
