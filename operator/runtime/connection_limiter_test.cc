#include "operator/runtime/connection_limiter.h"

#include <gtest/gtest.h>

#include <vector>

namespace rdmastack::runtime {
namespace {

TEST(ConnectionLimiterTest, OneAddressGetsItsShareTheRestGoesToOthers) {
  ConnectionLimiter limiter({.max_connections = 5, .max_connections_per_address = 2});
  const char* refusal = nullptr;
  std::vector<ConnectionLimiter::Slot> held;
  for (int i = 0; i < 2; ++i) {
    auto slot = limiter.Admit("10.0.0.1", &refusal);
    ASSERT_TRUE(slot.has_value());
    held.push_back(std::move(*slot));
  }
  EXPECT_FALSE(limiter.Admit("10.0.0.1", &refusal).has_value());
  EXPECT_STREQ(refusal, kRefusedMaxConnectionsPerAddress);
  for (const char* other : {"10.0.0.2", "10.0.0.2", "10.0.0.3"}) {
    auto slot = limiter.Admit(other, &refusal);
    ASSERT_TRUE(slot.has_value()) << other;
    held.push_back(std::move(*slot));
  }
  EXPECT_EQ(limiter.open(), 5u);
  EXPECT_FALSE(limiter.Admit("10.0.0.4", &refusal).has_value());
  EXPECT_STREQ(refusal, kRefusedMaxConnections);
  // A freed place is anyone's again, and the address's count goes with its last connection.
  held.erase(held.begin());
  EXPECT_EQ(limiter.open_from("10.0.0.1"), 1u);
  EXPECT_TRUE(limiter.Admit("10.0.0.4", &refusal).has_value());
  held.clear();
  EXPECT_EQ(limiter.open(), 0u);
  EXPECT_EQ(limiter.open_from("10.0.0.2"), 0u);
}

TEST(ConnectionLimiterTest, ZeroPerAddressLeavesOnlyTheTotal) {
  ConnectionLimiter limiter({.max_connections = 3, .max_connections_per_address = 0});
  const char* refusal = nullptr;
  std::vector<ConnectionLimiter::Slot> held;
  for (int i = 0; i < 3; ++i) held.push_back(*limiter.Admit("127.0.0.1", &refusal));
  EXPECT_FALSE(limiter.Admit("127.0.0.1", &refusal).has_value());
  EXPECT_STREQ(refusal, kRefusedMaxConnections);
}

TEST(ConnectionLimiterTest, AMovedSlotIsReleasedOnce) {
  ConnectionLimiter limiter({.max_connections = 2, .max_connections_per_address = 2});
  const char* refusal = nullptr;
  {
    ConnectionLimiter::Slot a = *limiter.Admit("a", &refusal);
    ConnectionLimiter::Slot b = std::move(a);
    ConnectionLimiter::Slot c = *limiter.Admit("a", &refusal);
    c = std::move(b);  // c's own place is freed, b's moves in
    EXPECT_EQ(limiter.open(), 1u);
  }
  EXPECT_EQ(limiter.open(), 0u);
}

}  // namespace
}  // namespace rdmastack::runtime
