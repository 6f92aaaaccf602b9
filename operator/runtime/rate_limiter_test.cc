#include "operator/runtime/rate_limiter.h"

#include <gtest/gtest.h>

#include <chrono>

namespace rdmastack::runtime {
namespace {

using namespace std::chrono_literals;

TEST(ItemExponentialRateLimiterTest, DoublesPerFailureUpToTheCap) {
  ItemExponentialRateLimiter limiter(5ms, 1000s);
  struct Step {
    int failures_before;
    Clock::Duration want;
  };
  const Step steps[] = {{0, 5ms},       {1, 10ms},   {2, 20ms},   {3, 40ms},    {10, 5120ms},
                        {17, 655360ms}, {18, 1000s}, {40, 1000s}, {2000, 1000s}};
  for (const Step& s : steps) {
    ItemExponentialRateLimiter fresh(5ms, 1000s);
    for (int i = 0; i < s.failures_before; ++i) (void)fresh.When("k");
    EXPECT_EQ(fresh.When("k"), s.want) << "after " << s.failures_before << " failures";
    EXPECT_EQ(fresh.NumRequeues("k"), s.failures_before + 1);
  }
}

TEST(ItemExponentialRateLimiterTest, ItemsAreIndependentAndForgetResets) {
  ItemExponentialRateLimiter limiter(1ms, 1s);
  EXPECT_EQ(limiter.When("a"), 1ms);
  EXPECT_EQ(limiter.When("a"), 2ms);
  EXPECT_EQ(limiter.When("b"), 1ms);
  limiter.Forget("a");
  EXPECT_EQ(limiter.NumRequeues("a"), 0);
  EXPECT_EQ(limiter.When("a"), 1ms);
  EXPECT_EQ(limiter.NumRequeues("b"), 1);
}

TEST(BucketRateLimiterTest, BurstIsFreeThenOneTokenPerInterval) {
  FakeClock clock;
  BucketRateLimiter limiter(clock, 10.0, 100);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(limiter.When("x"), 0ms) << i;
  // Tokens go negative: each further reservation waits one more 100 ms interval.
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(limiter.When("x")), 100ms);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(limiter.When("y")), 200ms);
  clock.Advance(1s);  // refills 10 tokens: back to -2 + 10 = 8
  for (int i = 0; i < 8; ++i) ASSERT_EQ(limiter.When("x"), 0ms) << i;
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(limiter.When("x")), 100ms);
}

TEST(BucketRateLimiterTest, RefillIsCappedAtBurst) {
  FakeClock clock;
  BucketRateLimiter limiter(clock, 10.0, 3);
  clock.Advance(1h);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(limiter.When("x"), 0ms);
  EXPECT_GT(limiter.When("x"), 0ms);
}

TEST(DefaultControllerRateLimiterTest, TakesTheLongerOfBackoffAndBucket) {
  FakeClock clock;
  auto limiter = DefaultControllerRateLimiter(clock);
  // Within the burst, the per-item backoff decides.
  EXPECT_EQ(limiter->When("a"), 5ms);
  EXPECT_EQ(limiter->When("a"), 10ms);
  // Exhaust the bucket with other items: then the bucket's delay exceeds a fresh item's 5 ms.
  for (int i = 0; i < 98; ++i) (void)limiter->When("other-" + std::to_string(i));
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(limiter->When("fresh")), 100ms);
  EXPECT_EQ(limiter->NumRequeues("a"), 2);
  limiter->Forget("a");
  EXPECT_EQ(limiter->NumRequeues("a"), 0);
}

}  // namespace
}  // namespace rdmastack::runtime
