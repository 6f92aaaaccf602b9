#include "operator/runtime/workqueue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <thread>
#include <vector>

namespace rdmastack::runtime {
namespace {

using namespace std::chrono_literals;

class WorkQueueTest : public ::testing::Test {
 protected:
  std::vector<std::string> Drain() {
    std::vector<std::string> out;
    while (auto item = queue_.TryGet()) {
      out.push_back(*item);
      queue_.Done(*item);
    }
    return out;
  }

  FakeClock clock_;
  MetricsRegistry metrics_;
  WorkQueue queue_{"test", clock_, DefaultControllerRateLimiter(clock_), &metrics_};
};

TEST_F(WorkQueueTest, OrderAndDeduplicationTable) {
  struct Case {
    std::vector<std::string> adds;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {{}, {}},
      {{"a"}, {"a"}},
      {{"a", "b", "c"}, {"a", "b", "c"}},
      {{"a", "a", "a"}, {"a"}},
      {{"b", "a", "b", "c", "a"}, {"b", "a", "c"}},
  };
  for (const Case& c : cases) {
    for (const auto& item : c.adds) queue_.Add(item);
    EXPECT_EQ(Drain(), c.want);
  }
}

TEST_F(WorkQueueTest, ItemReAddedWhileProcessingIsHeldUntilDone) {
  queue_.Add("a");
  auto got = queue_.TryGet();
  ASSERT_EQ(got, "a");
  queue_.Add("a");
  queue_.Add("a");
  // Not handed out again while the first worker still holds it.
  EXPECT_EQ(queue_.TryGet(), std::nullopt);
  EXPECT_EQ(queue_.Len(), 0u);
  queue_.Done("a");
  EXPECT_EQ(queue_.TryGet(), "a");
  queue_.Done("a");
  EXPECT_EQ(queue_.TryGet(), std::nullopt);
}

TEST_F(WorkQueueTest, AddAfterWaitsForTheClockAndEarliestTimeWins) {
  queue_.AddAfter("slow", 10s);
  queue_.AddAfter("fast", 2s);
  queue_.AddAfter("slow", 5s);  // earlier: replaces 10 s
  queue_.AddAfter("fast", 8s);  // later: ignored
  EXPECT_EQ(queue_.NumWaiting(), 2u);
  EXPECT_EQ(queue_.TryGet(), std::nullopt);
  clock_.Advance(2s);
  EXPECT_EQ(Drain(), std::vector<std::string>{"fast"});
  clock_.Advance(2999ms);
  EXPECT_EQ(queue_.TryGet(), std::nullopt);
  clock_.Advance(1ms);
  EXPECT_EQ(Drain(), std::vector<std::string>{"slow"});
}

TEST_F(WorkQueueTest, DueItemsAreQueuedInReadyTimeOrder) {
  queue_.AddAfter("c", 3s);
  queue_.AddAfter("a", 1s);
  queue_.AddAfter("b", 2s);
  clock_.Advance(5s);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"a", "b", "c"}));
}

TEST_F(WorkQueueTest, EqualReadyTimesComeOutInTheOrderTheyWereAdded) {
  for (const char* item : {"m", "c", "x", "a"}) queue_.AddAfter(item, 1s);
  clock_.Advance(1s);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"m", "c", "x", "a"}));
}

TEST_F(WorkQueueTest, AnEarlierReAddOvertakesItemsThatWereDueBeforeIt) {
  queue_.AddAfter("x", 10s);
  queue_.AddAfter("y", 5s);
  queue_.AddAfter("z", 3s);
  queue_.AddAfter("x", 1s);
  clock_.Advance(1s);
  EXPECT_EQ(Drain(), std::vector<std::string>{"x"});
  EXPECT_EQ(queue_.NumWaiting(), 2u);
  clock_.Advance(9s);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"z", "y"}));
  EXPECT_EQ(queue_.NumWaiting(), 0u);
}

TEST_F(WorkQueueTest, ADelayedItemAlreadyQueuedIsNotQueuedTwice) {
  queue_.Add("a");
  queue_.AddAfter("a", 1s);
  clock_.Advance(1s);
  EXPECT_EQ(Drain(), std::vector<std::string>{"a"});
  EXPECT_EQ(queue_.NumWaiting(), 0u);
}

// Ten thousand delayed items, each added at a distinct delay and re-added once with a random
// other delay (the earlier one must win). As the clock moves, exactly the items whose earlier
// delay has passed come out, in ready-time order.
TEST_F(WorkQueueTest, ManyDelayedItemsComeOutInReadyTimeOrderWithTheEarlierTimeWinning) {
  constexpr int kItems = 10'000;
  std::mt19937 rng(42);
  std::vector<int> first(kItems);
  for (int i = 0; i < kItems; ++i) first[i] = i + 1;
  std::shuffle(first.begin(), first.end(), rng);
  std::map<int, std::string> want_by_ms;  // effective delay -> item; delays stay distinct
  std::uniform_int_distribution<int> coin(0, 1);
  for (int i = 0; i < kItems; ++i) {
    const std::string item = "item-" + std::to_string(i);
    queue_.AddAfter(item, std::chrono::milliseconds(first[i]));
    // Half the re-adds are later (ignored), half earlier by a distinct fraction of a millisecond.
    const bool earlier = coin(rng) == 1;
    const auto again = earlier ? std::chrono::microseconds(first[i] * 1000 - 500)
                               : std::chrono::microseconds(first[i] * 1000 + 200'000);
    queue_.AddAfter(item, again);
    want_by_ms[first[i] * 2 - (earlier ? 1 : 0)] = item;
  }
  EXPECT_EQ(queue_.NumWaiting(), static_cast<size_t>(kItems));
  std::vector<std::string> got;
  std::vector<std::string> want;
  for (int step = 1; step <= kItems; step += 997) {
    clock_.Advance(std::chrono::milliseconds(997));
    for (auto& item : Drain()) got.push_back(item);
    const auto now_half_ms =
        2 * std::chrono::duration_cast<std::chrono::milliseconds>(clock_.Now().time_since_epoch())
                .count();
    want.clear();
    for (const auto& [half_ms, item] : want_by_ms) {
      if (half_ms > now_half_ms) break;
      want.push_back(item);
    }
    ASSERT_EQ(got, want) << "after " << now_half_ms / 2 << " ms";
    EXPECT_EQ(queue_.NumWaiting(), kItems - got.size());
  }
  clock_.Advance(std::chrono::seconds(20));
  for (auto& item : Drain()) got.push_back(item);
  EXPECT_EQ(got.size(), static_cast<size_t>(kItems));
  EXPECT_EQ(queue_.NumWaiting(), 0u);
}

TEST_F(WorkQueueTest, ZeroDelayIsAnImmediateAdd) {
  queue_.AddAfter("now", 0s);
  EXPECT_EQ(queue_.TryGet(), "now");
}

TEST_F(WorkQueueTest, RateLimitedRetriesBackOffExponentiallyUntilForget) {
  const Clock::Duration want_delays[] = {5ms, 10ms, 20ms, 40ms};
  for (Clock::Duration want : want_delays) {
    queue_.AddRateLimited("k");
    clock_.Advance(want - 1ms);
    ASSERT_EQ(queue_.TryGet(), std::nullopt);
    clock_.Advance(1ms);
    auto got = queue_.TryGet();
    ASSERT_EQ(got, "k");
    queue_.Done("k");
  }
  EXPECT_EQ(queue_.NumRequeues("k"), 4);
  queue_.Forget("k");
  queue_.AddRateLimited("k");
  clock_.Advance(5ms);
  EXPECT_EQ(queue_.TryGet(), "k");
}

TEST_F(WorkQueueTest, ShutDownStopsIntakeAndReleasesBlockedGet) {
  std::optional<std::string> got = "unset";
  std::thread worker([&] { got = queue_.Get(); });
  queue_.ShutDown();
  worker.join();
  EXPECT_EQ(got, std::nullopt);
  queue_.Add("late");
  EXPECT_EQ(queue_.Len(), 0u);
  EXPECT_TRUE(queue_.ShuttingDown());
}

TEST_F(WorkQueueTest, BlockedGetWakesForAnAddFromAnotherThread) {
  std::optional<std::string> got;
  std::thread worker([&] { got = queue_.Get(); });
  queue_.Add("x");
  worker.join();
  EXPECT_EQ(got, "x");
}

TEST_F(WorkQueueTest, BlockedGetWakesWhenTheClockReachesADelayedItem) {
  queue_.AddAfter("later", 30s);
  std::optional<std::string> got;
  std::thread worker([&] { got = queue_.Get(); });
  clock_.Advance(30s);
  worker.join();
  EXPECT_EQ(got, "later");
}

TEST_F(WorkQueueTest, WaitForIdleReportsInFlightWork) {
  queue_.Add("a");
  ASSERT_EQ(queue_.TryGet(), "a");
  EXPECT_FALSE(queue_.WaitForIdle(clock_.Now()));
  queue_.Done("a");
  EXPECT_TRUE(queue_.WaitForIdle(clock_.Now()));
}

TEST_F(WorkQueueTest, MetricsCountAddsRetriesAndDepth) {
  queue_.Add("a");
  queue_.Add("a");
  queue_.Add("b");
  queue_.AddRateLimited("c");
  const std::string text = metrics_.Render();
  EXPECT_NE(text.find("workqueue_adds_total{name=\"test\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("workqueue_depth{name=\"test\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("workqueue_retries_total{name=\"test\"} 1\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace rdmastack::runtime
