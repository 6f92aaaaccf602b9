#include "base/clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace rdmastack {
namespace {

TEST(FakeClockTest, MovesOnlyWhenAdvanced) {
  FakeClock clock;
  auto t0 = clock.Now();
  auto w0 = clock.WallNow();
  EXPECT_EQ(clock.Now(), t0);
  clock.Advance(std::chrono::seconds(15));
  EXPECT_EQ(clock.Now() - t0, std::chrono::seconds(15));
  EXPECT_EQ(clock.WallNow() - w0, std::chrono::seconds(15));
}

TEST(FakeClockTest, WaitUntilPastDeadlineReturnsImmediately) {
  FakeClock clock;
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> lock(mu);
  clock.Advance(std::chrono::seconds(1));
  clock.WaitUntil(lock, cv, clock.Now() - std::chrono::seconds(1));
  EXPECT_TRUE(lock.owns_lock());
}

// A sleeper that wakes every 300 ms of clock time sees every 100 ms step: with
// AdvanceAndWaitForSleeper, time never runs ahead of it however slowly it is scheduled.
TEST(FakeClockTest, AdvanceAndWaitForSleeperLetsTheSleeperSeeEveryStep) {
  FakeClock clock;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Clock::Duration> woke_at;
  std::atomic<bool> stop{false};
  Clock::TimePoint deadline = clock.Now() + std::chrono::milliseconds(300);
  std::thread sleeper([&] {
    std::unique_lock<std::mutex> l(mu);
    while (!stop) {
      if (clock.Now() >= deadline) {
        woke_at.push_back(clock.Now() - Clock::TimePoint{});
        deadline = clock.Now() + std::chrono::milliseconds(300);
        // Slow to react: time must not move meanwhile.
        l.unlock();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        l.lock();
      }
      clock.WaitUntil(l, cv, deadline);
    }
  });
  for (int i = 0; i < 9; ++i) {
    ASSERT_TRUE(clock.AdvanceAndWaitForSleeper(std::chrono::milliseconds(100)));
  }
  stop = true;
  sleeper.join();
  using std::chrono::milliseconds;
  EXPECT_EQ(woke_at, (std::vector<Clock::Duration>{milliseconds(300), milliseconds(600),
                                                   milliseconds(900)}));
}

TEST(FakeClockTest, AdvanceAndWaitForSleeperGivesUpWithoutASleeper) {
  FakeClock clock;
  EXPECT_FALSE(
      clock.AdvanceAndWaitForSleeper(std::chrono::seconds(1), std::chrono::milliseconds(1)));
  EXPECT_EQ(clock.Now() - Clock::TimePoint{}, std::chrono::seconds(1));
}

}  // namespace
}  // namespace rdmastack
