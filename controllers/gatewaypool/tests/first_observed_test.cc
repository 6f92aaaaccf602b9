#include "controllers/gatewaypool/first_observed.h"

#include <gtest/gtest.h>

namespace rdmastack::gatewaypool {
namespace {

using std::chrono::seconds;

int64_t Unix(const FakeClock& clock) {
  return std::chrono::duration_cast<seconds>(clock.WallNow().time_since_epoch()).count();
}

TEST(FirstObservedTest, AStampCountsFromWhenThisProcessFirstSawItOnItsMonotonicClock) {
  FakeClock clock;
  FirstObserved observed(clock);
  const int64_t t0 = Unix(clock);
  // Written here and now: counted as it is.
  EXPECT_EQ(observed.CountFrom("ns/p", "n1/since", t0, t0), t0);
  clock.Advance(seconds(7));
  EXPECT_EQ(observed.CountFrom("ns/p", "n1/since", t0, Unix(clock)), t0);

  // A stamp from a clock 30 s behind, first seen now: counted from now.
  const int64_t now = Unix(clock);
  EXPECT_EQ(observed.CountFrom("ns/p", "n2/since", now - 30, now), now);
  clock.Advance(seconds(5));
  EXPECT_EQ(observed.CountFrom("ns/p", "n2/since", now - 30, Unix(clock)), now);
  // A stamp from a clock ahead: the stamp itself (never earlier than the writer said).
  EXPECT_EQ(observed.CountFrom("ns/p", "n3/since", Unix(clock) + 40, Unix(clock)),
            Unix(clock) + 40);
  // The wall clock stepping back does not make the watched time shorter.
  EXPECT_EQ(observed.CountFrom("ns/p", "n2/since", now - 30, Unix(clock) - 100), now - 30)
      << "never before the stamp";

  // A new stamp under the same key starts over.
  const int64_t later = Unix(clock);
  EXPECT_EQ(observed.CountFrom("ns/p", "n2/since", later - 60, later), later);
}

TEST(FirstObservedTest, SweepForgetsWhatAPassNoLongerAsksFor) {
  FakeClock clock;
  FirstObserved observed(clock);
  const int64_t t0 = Unix(clock);
  observed.CountFrom("ns/p", "gone/since", t0 - 30, t0);
  observed.CountFrom("ns/p", "kept/since", t0 - 30, t0);
  observed.Sweep("ns/p");
  clock.Advance(seconds(10));
  observed.CountFrom("ns/p", "kept/since", t0 - 30, Unix(clock));
  observed.Sweep("ns/p");  // "gone" was not asked for in this pass
  EXPECT_EQ(observed.CountFrom("ns/p", "kept/since", t0 - 30, Unix(clock)), t0);
  EXPECT_EQ(observed.CountFrom("ns/p", "gone/since", t0 - 30, Unix(clock)), Unix(clock))
      << "seen anew";
  observed.Forget("ns/p");
  EXPECT_EQ(observed.CountFrom("ns/p", "kept/since", t0 - 30, Unix(clock)), Unix(clock));
}

}  // namespace
}  // namespace rdmastack::gatewaypool
