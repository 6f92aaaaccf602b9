#include "operator/runtime/backoff.h"

#include <gtest/gtest.h>

namespace rdmastack::runtime {
namespace {

using namespace std::chrono_literals;
using ms = std::chrono::milliseconds;

ms Ms(Clock::Duration d) {
  return std::chrono::duration_cast<ms>(d);
}

TEST(BackoffTest, DoublesFrom800msToThe30sCapWithoutJitter) {
  Backoff b({}, [] { return 0.0; });
  Clock::TimePoint t{};
  const ms want[] = {800ms, 1600ms, 3200ms, 6400ms, 12800ms, 25600ms, 30000ms, 30000ms};
  for (ms w : want) {
    EXPECT_EQ(Ms(b.Next(t)), w);
    t += 1s;  // failures in quick succession
  }
}

TEST(BackoffTest, JitterAddsUpToTheBaseDelay) {
  struct Case {
    double uniform;
    ms want;
  };
  const Case cases[] = {{0.0, 800ms}, {0.5, 1200ms}, {0.999, 1599ms}};
  for (const Case& c : cases) {
    Backoff b({}, [&] { return c.uniform; });
    EXPECT_EQ(Ms(b.Next(Clock::TimePoint{})), c.want) << c.uniform;
  }
}

TEST(BackoffTest, ResetsAfterAHealthyPeriod) {
  Backoff b({}, [] { return 0.0; });
  Clock::TimePoint t{};
  EXPECT_EQ(Ms(b.Next(t)), 800ms);
  EXPECT_EQ(Ms(b.Next(t += 10s)), 1600ms);
  EXPECT_EQ(Ms(b.Next(t += 2min)), 3200ms);       // exactly the reset period: not yet
  EXPECT_EQ(Ms(b.Next(t += 2min + 1ms)), 800ms);  // longer: back to the start
  EXPECT_EQ(Ms(b.Next(t += 1s)), 1600ms);
}

}  // namespace
}  // namespace rdmastack::runtime
