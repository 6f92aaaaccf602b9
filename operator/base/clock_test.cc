#include "operator/base/clock.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace rdmastack
