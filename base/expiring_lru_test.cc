#include "base/expiring_lru.h"

#include <gtest/gtest.h>

namespace rdmastack {
namespace {

using std::chrono::seconds;

TEST(ExpiringLruTest, EntriesExpireAtTheirDeadline) {
  ExpiringLru<int> lru(4);
  const Clock::TimePoint t0{};
  lru.Put("a", 1, t0 + seconds(10));
  EXPECT_EQ(lru.Get("a", t0 + seconds(9)), 1);
  EXPECT_EQ(lru.Get("a", t0 + seconds(10)), std::nullopt);
  EXPECT_EQ(lru.size(), 0u);  // an expired entry read is dropped
}

TEST(ExpiringLruTest, FullCacheEvictsTheLeastRecentlyUsed) {
  ExpiringLru<int> lru(2);
  const Clock::TimePoint t0{}, later = t0 + seconds(60);
  lru.Put("a", 1, later);
  lru.Put("b", 2, later);
  ASSERT_EQ(lru.Get("a", t0), 1);  // b is now the least recently used
  lru.Put("c", 3, later);
  EXPECT_EQ(lru.size(), 2u);
  EXPECT_EQ(lru.Get("b", t0), std::nullopt);
  EXPECT_EQ(lru.Get("a", t0), 1);
  EXPECT_EQ(lru.Get("c", t0), 3);
}

TEST(ExpiringLruTest, PutReplacesAndEraseRemoves) {
  ExpiringLru<std::string> lru(2);
  const Clock::TimePoint t0{}, later = t0 + seconds(60);
  lru.Put("a", "old", later);
  lru.Put("a", "new", later);
  EXPECT_EQ(lru.size(), 1u);
  EXPECT_EQ(lru.Get("a", t0), "new");
  lru.Erase("a");
  EXPECT_EQ(lru.Get("a", t0), std::nullopt);
}

TEST(ExpiringLruTest, ZeroCapacityKeepsNothing) {
  ExpiringLru<int> lru(0);
  lru.Put("a", 1, Clock::TimePoint{} + seconds(60));
  EXPECT_EQ(lru.size(), 0u);
  EXPECT_EQ(lru.Get("a", Clock::TimePoint{}), std::nullopt);
}

}  // namespace
}  // namespace rdmastack
