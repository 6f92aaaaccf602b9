#include "operator/runtime/event_series.h"

#include <gtest/gtest.h>

namespace rdmastack::runtime {
namespace {

using namespace std::chrono_literals;

EventSpec Spec(std::string reason, std::string note = "n", std::string name = "pool-a") {
  EventSpec s;
  s.regarding = {"rdmastack.io/v1alpha1", "GatewayPool", "ns", std::move(name), "uid-1"};
  s.type = "Warning";
  s.reason = std::move(reason);
  s.action = "Reconcile";
  s.note = std::move(note);
  return s;
}

class EventSeriesTest : public ::testing::Test {
 protected:
  Clock::WallTime At(Clock::Duration d) const {
    return t0_ + std::chrono::duration_cast<std::chrono::system_clock::duration>(d);
  }
  const Clock::WallTime t0_{std::chrono::seconds(1'800'000'000)};
  EventSeriesCache cache_;
};

TEST_F(EventSeriesTest, FirstCreatesSecondStartsSeriesLaterOnesOnlyCount) {
  auto first = cache_.Observe(Spec("DriverMissing"), At(0s));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->write, EventWrite::kCreate);
  EXPECT_EQ(first->record.series_count, 0);

  auto second = cache_.Observe(Spec("DriverMissing"), At(10s));
  ASSERT_TRUE(second);
  EXPECT_EQ(second->write, EventWrite::kPatchSeries);
  EXPECT_EQ(second->record.series_count, 2);
  EXPECT_EQ(second->record.name, first->record.name);  // patches the created object
  EXPECT_EQ(second->record.last_observed, At(10s));

  EXPECT_FALSE(cache_.Observe(Spec("DriverMissing"), At(20s)));
  EXPECT_FALSE(cache_.Observe(Spec("DriverMissing"), At(30s)));
  EXPECT_EQ(cache_.size(), 1u);
}

TEST_F(EventSeriesTest, IsomorphismKeyTable) {
  struct Case {
    const char* what;
    EventSpec other;
    bool same;
  };
  EventSpec related = Spec("R");
  related.related = ObjectRef{"v1", "Node", "", "n1", "u2"};
  EventSpec other_action = Spec("R");
  other_action.action = "Upgrade";
  EventSpec other_type = Spec("R");
  other_type.type = "Normal";
  const Case cases[] = {
      {"identical", Spec("R"), true},
      {"different note", Spec("R", "other note"), true},
      {"different type", other_type, true},
      {"different reason", Spec("Other"), false},
      {"different object", Spec("R", "n", "pool-b"), false},
      {"with related object", related, false},
      {"different action", other_action, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(EventSeriesCache::KeyOf(Spec("R")) == EventSeriesCache::KeyOf(c.other), c.same)
        << c.what;
  }
}

TEST_F(EventSeriesTest, TickRefreshesLiveSeriesAndFinishesQuietOnes) {
  (void)cache_.Observe(Spec("A"), At(0s));
  (void)cache_.Observe(Spec("A"), At(1s));  // series count 2, written at 1 s
  for (int i = 0; i < 5; ++i) (void)cache_.Observe(Spec("A"), At(2s + i * 1min));  // count 7
  (void)cache_.Observe(Spec("Single"), At(0s));

  EXPECT_TRUE(cache_.Tick(At(5min)).empty());
  // 6 min after its event time the single event is forgotten without a write.
  EXPECT_TRUE(cache_.Tick(At(6min + 1s)).empty());
  EXPECT_EQ(cache_.size(), 1u);

  // The series was last seen at 4 min 2 s; 6 min later its final count is written and dropped.
  auto finals = cache_.Tick(At(10min + 3s));
  ASSERT_EQ(finals.size(), 1u);
  EXPECT_EQ(finals[0].write, EventWrite::kPatchSeries);
  EXPECT_EQ(finals[0].record.series_count, 7);
  EXPECT_EQ(finals[0].record.last_observed, At(4min + 2s));
  EXPECT_EQ(cache_.size(), 0u);
  // A later occurrence starts over with a new event.
  auto again = cache_.Observe(Spec("A"), At(11min));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->write, EventWrite::kCreate);
}

TEST_F(EventSeriesTest, BusySeriesIsRefreshedEveryRefreshInterval) {
  (void)cache_.Observe(Spec("A"), At(0s));
  (void)cache_.Observe(Spec("A"), At(0s));
  int refreshes = 0;
  for (auto t = 1min; t <= 61min; t += 1min) {
    (void)cache_.Observe(Spec("A"), At(t));
    refreshes += static_cast<int>(cache_.Tick(At(t)).size());
  }
  EXPECT_EQ(refreshes, 2);  // at 30 and 60 minutes
}

TEST(EventFormatTest, NameAndMicroTime) {
  const Clock::WallTime t{std::chrono::microseconds(1'764'404'400'123'456)};
  EXPECT_EQ(FormatMicroTime(t), "2025-11-29T08:20:00.123456Z");
  EXPECT_EQ(EventName("pool", t), "pool.187c6c74257eaa00");
  EXPECT_EQ(FormatMicroTime(Clock::WallTime{}), "1970-01-01T00:00:00.000000Z");
}

}  // namespace
}  // namespace rdmastack::runtime
