#pragma once
// TokenReviews for agent tokens, cached. Each distinct token costs the API server one review for
// as long as the token lives (bounded memory): 5,000 agents reconnecting at once send 5,000
// reviews once, not one per reconnect; concurrent reviews of one token are made once.

#include <chrono>
#include <cstddef>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "base/clock.h"
#include "base/expiring_lru.h"
#include "operator/k8s/client.h"
#include "operator/runtime/metrics.h"
#include "servers/agenthub/admission.h"

namespace rdmastack::agenthub {

class TokenReviewer {
 public:
  virtual ~TokenReviewer() = default;
  // The API server's verdict on `token` (not empty). An error only when no verdict was had
  // (API server unreachable, the review forbidden): such errors are never cached.
  virtual StatusOr<TokenReviewResult> Review(const std::string& token) = 0;
  // Forget what is known about `token` (its bound Pod is gone).
  virtual void Invalidate(const std::string& /*token*/) {}
};

// One TokenReview per call, for `audience`; each is counted in `reviews` when given.
class ApiTokenReviewer final : public TokenReviewer {
 public:
  ApiTokenReviewer(k8s::Client& client, std::string audience, runtime::Counter* reviews = nullptr)
      : client_(client), audience_(std::move(audience)), reviews_(reviews) {}
  StatusOr<TokenReviewResult> Review(const std::string& token) override;

 private:
  k8s::Client& client_;
  const std::string audience_;
  runtime::Counter* reviews_;
};

// The `exp` claim of a JWT (read without verifying the signature: only the API server's review
// decides whether a token is valid; the claim only says how long that answer may be kept).
std::optional<Clock::WallTime> JwtExpiry(const std::string& token);
// The pod a projected ServiceAccount token says it is bound to (its kubernetes.io.pod.uid claim),
// read the same way, unverified; "" when it names none. Only a review proves it: the hub uses it
// to tell which agent a Hello claims to come from before it spends a review on it.
std::string JwtPodUid(const std::string& token);

struct TokenReviewCacheOptions {
  size_t max_entries = 10'000;
  // Accepted tokens are kept until their expiry, at most this long (a token without `exp`).
  Clock::Duration max_ttl = std::chrono::minutes(10);
  // Refused tokens are kept this long (or until their expiry, if sooner): a refused agent that
  // reconnects in a loop costs one review per minute, and a token that was refused for a reason
  // that goes away (clock skew, a Pod not yet written) is asked again soon.
  Clock::Duration negative_ttl = std::chrono::minutes(1);
};

// Caches `inner`'s verdicts by the token's SHA-256; least recently used entries go when full.
// Tokens whose `exp` has passed are refused as expired without a review. Thread-safe.
class CachingTokenReviewer final : public TokenReviewer {
 public:
  CachingTokenReviewer(TokenReviewer& inner, Clock& clock, TokenReviewCacheOptions options = {});
  StatusOr<TokenReviewResult> Review(const std::string& token) override;
  void Invalidate(const std::string& token) override;
  size_t size() const;

 private:
  using Verdict = StatusOr<TokenReviewResult>;

  std::optional<TokenReviewResult> Lookup(const std::string& key);
  void Store(const std::string& key, const TokenReviewResult& result,
             std::optional<Clock::WallTime> expiry);

  TokenReviewer& inner_;
  Clock& clock_;
  const TokenReviewCacheOptions options_;
  mutable std::mutex mu_;
  ExpiringLru<TokenReviewResult> entries_;
  // Reviews being made now, so that a second caller for the same token waits for the first.
  std::unordered_map<std::string, std::shared_future<Verdict>> in_flight_;
};

}  // namespace rdmastack::agenthub
