#include "operator/runtime/api_reachability.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using std::chrono::seconds;
using Verdict = ApiReachability::Verdict;

Status Http(int code) {
  return k8s::testing::ApiStatus(code, "Whatever", "reply");
}

// A request answered at once.
void Observe(ApiReachability& api, const Status& outcome, RequestKind kind) {
  api.End(kind, api.Begin(kind), outcome);
}

TEST(ApiReachabilityTest, StartsAnsweringWhenTheProcessStarts) {
  FakeClock clock;
  const Clock::WallTime start = clock.WallNow();
  ApiReachability api(clock);
  clock.Advance(seconds(30));
  Observe(api, OkStatus(), RequestKind::kStorage);
  EXPECT_EQ(api.AnsweringSince(), start);
}

TEST(ApiReachabilityTest, AnOutageLastsFromTheFirstUnansweredRequestToTheNextStorageAnswer) {
  FakeClock clock;
  ApiReachability api(clock);
  clock.Advance(seconds(10));
  Observe(api, UnavailableError("connection refused"), RequestKind::kCache);
  clock.Advance(seconds(5));
  EXPECT_EQ(api.AnsweringSince(), clock.WallNow()) << "during the outage: now";
  // etcd frozen: the watch cache still answers watches and reads at a version; writes time out.
  Observe(api, OkStatus(), RequestKind::kCache);
  Observe(api, Http(504), RequestKind::kStorage);
  clock.Advance(seconds(5));
  Observe(api, OkStatus(), RequestKind::kCache);
  EXPECT_EQ(api.AnsweringSince(), clock.WallNow()) << "a cached answer does not end it";
  Observe(api, Http(429), RequestKind::kStorage);
  EXPECT_EQ(api.AnsweringSince(), clock.WallNow()) << "nor does a request turned away at the door";
  clock.Advance(seconds(5));
  Observe(api, OkStatus(), RequestKind::kStorage);
  const Clock::WallTime back = clock.WallNow();
  clock.Advance(seconds(7));
  Observe(api, OkStatus(), RequestKind::kStorage);
  Observe(api, Http(409), RequestKind::kStorage);
  EXPECT_EQ(api.AnsweringSince(), back);
}

// With etcd frozen, writes hang rather than fail: a storage request waiting longer than `slow`
// is an outage from when it was sent, and its answer ends it.
TEST(ApiReachabilityTest, AStorageRequestWaitingTooLongIsAnOutageUntilItIsAnswered) {
  FakeClock clock;
  ApiReachability api(clock, seconds(5));
  const Clock::WallTime start = clock.WallNow();
  clock.Advance(seconds(10));
  const Clock::TimePoint watch = api.Begin(RequestKind::kCache);
  const Clock::TimePoint write = api.Begin(RequestKind::kStorage);
  clock.Advance(seconds(5));
  EXPECT_EQ(api.AnsweringSince(), start) << "5 s is not too long";
  clock.Advance(seconds(1));
  EXPECT_EQ(api.AnsweringSince(), clock.WallNow()) << "the write has waited 6 s";
  Observe(api, OkStatus(), RequestKind::kStorage);  // answered at once: the write still waits
  EXPECT_EQ(api.AnsweringSince(), clock.WallNow());
  clock.Advance(seconds(20));
  api.End(RequestKind::kCache, watch, OkStatus());
  EXPECT_EQ(api.AnsweringSince(), clock.WallNow()) << "a watch does not end it";
  api.End(RequestKind::kStorage, write, OkStatus());
  const Clock::WallTime back = clock.WallNow();
  clock.Advance(seconds(3));
  EXPECT_EQ(api.AnsweringSince(), back) << "the write's answer ended it";
}

TEST(ApiReachabilityTest, JudgesEachOutcome) {
  for (RequestKind kind : {RequestKind::kStorage, RequestKind::kCache}) {
    for (int code : {500, 503, 504})
      EXPECT_EQ(ApiReachability::Judge(Http(code), kind), Verdict::kOutage);
    EXPECT_EQ(ApiReachability::Judge(DeadlineExceededError("timed out"), kind), Verdict::kOutage);
    EXPECT_EQ(ApiReachability::Judge(UnavailableError("reset"), kind), Verdict::kOutage);
    EXPECT_EQ(ApiReachability::Judge(Http(429), kind), Verdict::kNeither);
  }
  EXPECT_EQ(ApiReachability::Judge(OkStatus(), RequestKind::kStorage), Verdict::kAnswer);
  for (int code : {404, 409, 410, 422}) {
    EXPECT_EQ(ApiReachability::Judge(Http(code), RequestKind::kStorage), Verdict::kAnswer) << code;
    EXPECT_EQ(ApiReachability::Judge(Http(code), RequestKind::kCache), Verdict::kNeither) << code;
  }
  // The authorizer and request decoding answer with etcd frozen: no proof that storage answers.
  for (int code : {400, 401, 403}) {
    EXPECT_EQ(ApiReachability::Judge(Http(code), RequestKind::kStorage), Verdict::kNeither) << code;
  }
  EXPECT_EQ(ApiReachability::Judge(OkStatus(), RequestKind::kCache), Verdict::kNeither);
}

TEST(ApiReachabilityTest, AnAnswerAfterAnOutageMovesTheStartEvenWithRequestsOnManyThreads) {
  FakeClock clock;
  ApiReachability api(clock);
  clock.Advance(seconds(1));
  Observe(api, Http(500), RequestKind::kStorage);
  clock.Advance(seconds(1));
  const Clock::WallTime back = clock.WallNow();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        Observe(api, OkStatus(), RequestKind::kStorage);
        (void)api.AnsweringSince();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(api.AnsweringSince(), back);
}

}  // namespace
}  // namespace rdmastack::runtime
