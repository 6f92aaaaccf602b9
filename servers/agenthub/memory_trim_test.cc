#include "servers/agenthub/memory_trim.h"

#include <gtest/gtest.h>

#include <atomic>

namespace rdmastack::agenthub {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(TrimPolicyTest, TrimsAfterAStormOnceTheMinimumIntervalPassed) {
  MemoryTrimOptions o;  // 10% churn, at most one trim per 5 s
  TrimPolicy p(o);
  Clock::TimePoint t{};
  EXPECT_FALSE(p.Sample(1000, t));  // the first sample only sets the baseline
  // Steady: nothing comes or goes, no trim however long it runs.
  for (int i = 1; i <= 20; ++i) EXPECT_FALSE(p.Sample(1000, t + seconds(i)));
  // Every agent drops: churn 1000 >= 10% of 1000, and 5 s have passed since the start.
  EXPECT_TRUE(p.Sample(0, t + seconds(21)));
}

TEST(TrimPolicyTest, ChurnBelowTheFractionOfThePeakDoesNotTrim) {
  MemoryTrimOptions o;
  TrimPolicy p(o);
  Clock::TimePoint t{};
  EXPECT_FALSE(p.Sample(1000, t));
  EXPECT_FALSE(p.Sample(1040, t + seconds(10)));  // 40 new of a peak 1040: under 10%
  EXPECT_FALSE(p.Sample(1000, t + seconds(11)));  // 80 churned: under 104
  EXPECT_TRUE(p.Sample(1030, t + seconds(12)));   // 110 churned: trim
  EXPECT_EQ(p.churn(), 0u);
}

TEST(TrimPolicyTest, AStormTrimsAtMostEveryMinIntervalAndOnceAfterItSettles) {
  MemoryTrimOptions o;
  TrimPolicy p(o);
  Clock::TimePoint t{};
  EXPECT_FALSE(p.Sample(1000, t));
  EXPECT_TRUE(p.Sample(0, t + seconds(6)));     // all dropped
  EXPECT_FALSE(p.Sample(300, t + seconds(7)));  // reconnecting, within 5 s of the last trim
  EXPECT_FALSE(p.Sample(700, t + seconds(8)));
  EXPECT_FALSE(p.Sample(1000, t + seconds(10)));
  EXPECT_TRUE(p.Sample(1000, t + seconds(11)));   // settled: the reconnects' churn is trimmed
  EXPECT_FALSE(p.Sample(1000, t + seconds(30)));  // nothing since
}

TEST(TrimPolicyTest, ZeroFractionNeverTrims) {
  MemoryTrimOptions o;
  o.churn_fraction = 0;
  TrimPolicy p(o);
  Clock::TimePoint t{};
  EXPECT_FALSE(p.Sample(1000, t));
  EXPECT_FALSE(p.Sample(0, t + seconds(60)));
}

TEST(TrimPolicyTest, NothingConnectedAndNothingHappeningDoesNotTrim) {
  MemoryTrimOptions o;
  TrimPolicy p(o);
  Clock::TimePoint t{};
  EXPECT_FALSE(p.Sample(0, t));
  EXPECT_FALSE(p.Sample(0, t + seconds(60)));
  EXPECT_TRUE(p.Sample(1, t + seconds(61)));  // one came: 1 >= 10% of a peak of 1
}

TEST(MemoryTrimOptionsTest, RejectsBadValues) {
  EXPECT_TRUE(ValidateMemoryTrimOptions(MemoryTrimOptions{}).ok());
  MemoryTrimOptions o;
  o.churn_fraction = 1.5;
  EXPECT_FALSE(ValidateMemoryTrimOptions(o).ok());
  o.churn_fraction = -0.1;
  EXPECT_FALSE(ValidateMemoryTrimOptions(o).ok());
  o = {};
  o.sample_interval = milliseconds(0);
  EXPECT_FALSE(ValidateMemoryTrimOptions(o).ok());
  o = {};
  o.min_interval = milliseconds(500);  // shorter than the 1 s sample interval
  EXPECT_FALSE(ValidateMemoryTrimOptions(o).ok());
}

TEST(MemoryTrimmerTest, TrimsOnItsThreadWhenTheCountChurns) {
  FakeClock clock;
  std::atomic<size_t> connected{100};
  std::atomic<int> trims{0};
  MemoryTrimOptions o;
  MemoryTrimmer trimmer(
      clock, o, [&] { return connected.load(); }, [&] { ++trims; });
  trimmer.Start();
  ASSERT_TRUE(clock.AdvanceAndWaitForSleeper(seconds(0)));  // the first sample is taken
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(clock.AdvanceAndWaitForSleeper(seconds(1)));
  EXPECT_EQ(trims, 0);  // nothing churned
  connected = 0;
  ASSERT_TRUE(clock.AdvanceAndWaitForSleeper(seconds(1)));
  EXPECT_EQ(trims, 1);
  EXPECT_EQ(trimmer.trims(), 1u);
  trimmer.Stop();
}

}  // namespace
}  // namespace rdmastack::agenthub
