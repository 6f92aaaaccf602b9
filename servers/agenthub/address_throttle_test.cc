#include "servers/agenthub/address_throttle.h"

#include <gtest/gtest.h>

namespace rdmastack::agenthub {
namespace {

AdmissionDecision Refusal(StatusCode code, const char* reason) {
  AdmissionDecision d;
  d.code = code;
  d.reason = reason;
  return d;
}
const AdmissionDecision kAccepted{};

TEST(PeerAddressTest, DropsTheSchemeAndThePort) {
  EXPECT_EQ(PeerAddress("ipv4:198.18.50.11:40122"), "198.18.50.11");
  EXPECT_EQ(PeerAddress("ipv6:[::1]:5000"), "::1");
  EXPECT_EQ(PeerAddress("ipv6:%5Bfd00::7%5D:5000"), "fd00::7");
  EXPECT_EQ(PeerAddress("unix:/run/x.sock"), "unix:/run/x.sock");
  EXPECT_EQ(PeerAddress(""), "");
}

TEST(AddressThrottleTest, PendingHellosPerAddressAreBounded) {
  FakeClock clock;
  AddressThrottle t({.max_pending = 2, .max_failures_per_minute = 10}, clock);
  EXPECT_FALSE(t.Admit("10.0.0.1"));
  EXPECT_FALSE(t.Admit("10.0.0.1"));
  const auto third = t.Admit("10.0.0.1");
  ASSERT_TRUE(third);
  EXPECT_EQ(third->code, StatusCode::kResourceExhausted);
  EXPECT_EQ(third->reason, kReasonTooManyPending);
  EXPECT_FALSE(t.Admit("10.0.0.2")) << "another address is not affected";
  t.Done("10.0.0.1", kAccepted);
  EXPECT_FALSE(t.Admit("10.0.0.1")) << "a slot is free again";
  t.Done("10.0.0.1", kAccepted);
  t.Done("10.0.0.1", kAccepted);
  t.Done("10.0.0.2", kAccepted);
  EXPECT_EQ(t.tracked(), 0u) << "an address with nothing pending and no failures is forgotten";
}

TEST(AddressThrottleTest, RefusedHellosThrottleTheAddressForTheRestOfTheMinute) {
  FakeClock clock;
  AddressThrottle t({.max_pending = 0, .max_failures_per_minute = 3}, clock);
  for (int i = 0; i < 3; ++i) {
    ASSERT_FALSE(t.Admit("10.0.0.1")) << i;
    t.Done("10.0.0.1", Refusal(StatusCode::kUnauthenticated, kReasonTokenRejected));
    clock.Advance(std::chrono::seconds(10));
  }
  const auto throttled = t.Admit("10.0.0.1");
  ASSERT_TRUE(throttled);
  EXPECT_EQ(throttled->reason, kReasonAddressThrottled);
  EXPECT_EQ(throttled->message,
            "3 Hellos from 10.0.0.1 were refused within a minute (the last: TokenRejected); "
            "Hellos from this address are refused for 30 s more; fix the agent's token or pod and "
            "let it retry");
  EXPECT_FALSE(t.Admit("10.0.0.9"));
  // An API outage is not the address's fault.
  t.Done("10.0.0.9", Refusal(StatusCode::kUnavailable, kReasonReviewUnavailable));
  EXPECT_FALSE(t.Admit("10.0.0.9"));
  t.Done("10.0.0.9", Refusal(StatusCode::kUnavailable, kReasonReviewUnavailable));
  // The minute that began with the first refusal ends.
  clock.Advance(std::chrono::seconds(30));
  EXPECT_FALSE(t.Admit("10.0.0.1"));
  t.Done("10.0.0.1", kAccepted);
  t.Sweep();
  EXPECT_EQ(t.tracked(), 0u);
}

TEST(AddressThrottleTest, ZeroLimitsLetEverythingThrough) {
  FakeClock clock;
  AddressThrottle t({.max_pending = 0, .max_failures_per_minute = 0}, clock);
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(t.Admit("127.0.0.1"));
  for (int i = 0; i < 100; ++i)
    t.Done("127.0.0.1", Refusal(StatusCode::kInvalidArgument, kReasonMalformedHello));
  EXPECT_FALSE(t.Admit("127.0.0.1"));
}

TEST(AddressThrottleTest, TrackedAddressesAreBounded) {
  FakeClock clock;
  AddressThrottle t({.max_pending = 1, .max_failures_per_minute = 1, .max_addresses = 2}, clock);
  EXPECT_FALSE(t.Admit("a"));
  EXPECT_FALSE(t.Admit("b"));
  const auto third = t.Admit("c");
  ASSERT_TRUE(third);
  EXPECT_EQ(third->reason, kReasonTooManyPending);
}

}  // namespace
}  // namespace rdmastack::agenthub
