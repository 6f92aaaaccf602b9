// The review cache: one review per distinct token while it lives, expiry by the token's own exp
// claim on a fake clock, a bounded size, and no caching of failed reviews.
#include "servers/agenthub/token_reviewer.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <atomic>
#include <thread>
#include <vector>

namespace rdmastack::agenthub {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

// A JWT-shaped token whose payload carries `exp` (the signature is not looked at).
std::string TokenExpiringAt(Clock::WallTime exp, const std::string& id) {
  const std::string payload =
      R"({"exp":)" +
      std::to_string(std::chrono::duration_cast<seconds>(exp.time_since_epoch()).count()) +
      R"(,"jti":")" + id + R"("})";
  std::string b64(4 * ((payload.size() + 2) / 3) + 1, '\0');
  b64.resize(EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()),
                             reinterpret_cast<const unsigned char*>(payload.data()),
                             static_cast<int>(payload.size())));
  for (char& c : b64) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  while (!b64.empty() && b64.back() == '=') b64.pop_back();
  return "eyJhbGciOiJSUzI1NiJ9." + b64 + ".c2ln";
}

class CountingReviewer final : public TokenReviewer {
 public:
  StatusOr<TokenReviewResult> Review(const std::string& token) override {
    ++calls;
    if (gate != nullptr) {
      while (!gate->load()) std::this_thread::yield();
    }
    if (fail) return UnavailableError("api down");
    TokenReviewResult r;
    r.authenticated = token.find("good") != std::string::npos || accept_all;
    r.error = r.authenticated ? "" : "invalid bearer token";
    return r;
  }
  std::atomic<int> calls{0};
  bool fail = false;
  bool accept_all = true;
  std::atomic<bool>* gate = nullptr;
};

TEST(JwtExpiryTest, ReadsTheExpClaimAndRejectsNonJwts) {
  const Clock::WallTime exp{seconds(1'800'000'000)};
  EXPECT_EQ(JwtExpiry(TokenExpiringAt(exp, "a")), exp);
  EXPECT_FALSE(JwtExpiry("not-a-jwt").has_value());
  EXPECT_FALSE(JwtExpiry("a.!!!.c").has_value());
  EXPECT_FALSE(JwtExpiry("a.e30.c").has_value());  // {} has no exp
}

TEST(CachingTokenReviewerTest, OneReviewPerTokenUntilItExpires) {
  FakeClock clock;
  CountingReviewer inner;
  CachingTokenReviewer cache(inner, clock, {.max_entries = 100, .max_ttl = minutes(60)});
  const std::string token = TokenExpiringAt(clock.WallNow() + minutes(10), "t1");
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(cache.Review(token)->authenticated);
  EXPECT_EQ(inner.calls, 1);
  clock.Advance(minutes(9));
  EXPECT_TRUE(cache.Review(token)->authenticated);
  EXPECT_EQ(inner.calls, 1);
  // Past its exp the token is refused as expired without asking the API server.
  clock.Advance(minutes(2));
  auto r = cache.Review(token);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->authenticated);
  EXPECT_NE(r->error.find("expired"), std::string::npos) << r->error;
  EXPECT_EQ(inner.calls, 1);
}

TEST(CachingTokenReviewerTest, CacheLifetimeIsCappedByMaxTtl) {
  FakeClock clock;
  CountingReviewer inner;
  CachingTokenReviewer cache(inner, clock, {.max_entries = 100, .max_ttl = minutes(5)});
  const std::string token = TokenExpiringAt(clock.WallNow() + minutes(60), "t1");
  ASSERT_TRUE(cache.Review(token).ok());
  clock.Advance(minutes(6));
  ASSERT_TRUE(cache.Review(token).ok());
  EXPECT_EQ(inner.calls, 2);
}

TEST(CachingTokenReviewerTest, RefusalsAreKeptForTheNegativeTtl) {
  FakeClock clock;
  CountingReviewer inner;
  inner.accept_all = false;
  CachingTokenReviewer cache(
      inner, clock, {.max_entries = 100, .max_ttl = minutes(60), .negative_ttl = minutes(1)});
  const std::string token = TokenExpiringAt(clock.WallNow() + minutes(60), "bad");
  EXPECT_FALSE(cache.Review(token)->authenticated);
  EXPECT_FALSE(cache.Review(token)->authenticated);
  EXPECT_EQ(inner.calls, 1);
  clock.Advance(seconds(61));
  EXPECT_FALSE(cache.Review(token)->authenticated);
  EXPECT_EQ(inner.calls, 2);
}

TEST(CachingTokenReviewerTest, FailedReviewsAreNotCached) {
  FakeClock clock;
  CountingReviewer inner;
  inner.fail = true;
  CachingTokenReviewer cache(inner, clock);
  const std::string token = TokenExpiringAt(clock.WallNow() + minutes(10), "t");
  EXPECT_FALSE(cache.Review(token).ok());
  inner.fail = false;
  EXPECT_TRUE(cache.Review(token).ok());
  EXPECT_EQ(inner.calls, 2);
}

TEST(CachingTokenReviewerTest, BoundedLeastRecentlyUsedGoesFirst) {
  FakeClock clock;
  CountingReviewer inner;
  CachingTokenReviewer cache(inner, clock, {.max_entries = 2});
  const auto exp = clock.WallNow() + minutes(10);
  const std::string a = TokenExpiringAt(exp, "a"), b = TokenExpiringAt(exp, "b"),
                    c = TokenExpiringAt(exp, "c");
  ASSERT_TRUE(cache.Review(a).ok());
  ASSERT_TRUE(cache.Review(b).ok());
  ASSERT_TRUE(cache.Review(a).ok());  // a is now the most recent
  ASSERT_TRUE(cache.Review(c).ok());  // evicts b
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(inner.calls, 3);
  ASSERT_TRUE(cache.Review(a).ok());
  EXPECT_EQ(inner.calls, 3);
  ASSERT_TRUE(cache.Review(b).ok());
  EXPECT_EQ(inner.calls, 4);
}

TEST(CachingTokenReviewerTest, InvalidateForgetsAToken) {
  FakeClock clock;
  CountingReviewer inner;
  CachingTokenReviewer cache(inner, clock);
  const std::string token = TokenExpiringAt(clock.WallNow() + minutes(10), "t");
  ASSERT_TRUE(cache.Review(token).ok());
  cache.Invalidate(token);
  ASSERT_TRUE(cache.Review(token).ok());
  EXPECT_EQ(inner.calls, 2);
}

TEST(CachingTokenReviewerTest, ConcurrentReviewsOfOneTokenAreMadeOnce) {
  FakeClock clock;
  CountingReviewer inner;
  std::atomic<bool> gate{false};
  inner.gate = &gate;
  CachingTokenReviewer cache(inner, clock);
  const std::string token = TokenExpiringAt(clock.WallNow() + minutes(10), "t");
  std::vector<std::thread> threads;
  std::atomic<int> accepted{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      auto r = cache.Review(token);
      if (r.ok() && r->authenticated) ++accepted;
    });
  }
  // Let every thread reach the cache before the one review in flight answers.
  while (inner.calls == 0) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  gate = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(accepted, 8);
  EXPECT_EQ(inner.calls, 1);
}

}  // namespace
}  // namespace rdmastack::agenthub
