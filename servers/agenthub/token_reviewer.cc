#include "servers/agenthub/token_reviewer.h"

#include "base/sha256.h"
#include "operator/k8s/config.h"

namespace rdmastack::agenthub {
namespace {

// base64url without padding (RFC 7515 §2) -> bytes.
std::optional<std::string> DecodeBase64Url(std::string text) {
  for (char& c : text) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (text.size() % 4 != 0) text += '=';
  auto decoded = k8s::DecodeBase64(text);
  if (!decoded.ok()) return std::nullopt;
  return *decoded;
}

// The payload of a JWT, not verified.
std::optional<k8s::JsonObject> UnverifiedJwtClaims(const std::string& token) {
  const size_t first = token.find('.');
  const size_t second = token.find('.', first == std::string::npos ? first : first + 1);
  if (first == std::string::npos || second == std::string::npos) return std::nullopt;
  const auto payload = DecodeBase64Url(token.substr(first + 1, second - first - 1));
  if (!payload) return std::nullopt;
  auto claims = k8s::JsonObject::Parse(*payload);
  if (!claims.ok()) return std::nullopt;
  return std::move(*claims);
}

}  // namespace

StatusOr<TokenReviewResult> ApiTokenReviewer::Review(const std::string& token) {
  if (reviews_ != nullptr) reviews_->Inc();
  RDMASTACK_ASSIGN_OR_RETURN(k8s::JsonObject status, k8s::ReviewToken(client_, token, {audience_}));
  return ParseTokenReviewStatus(status);
}

std::optional<Clock::WallTime> JwtExpiry(const std::string& token) {
  const auto claims = UnverifiedJwtClaims(token);
  if (!claims) return std::nullopt;
  const auto exp = claims->GetInt({"exp"});
  if (!exp) return std::nullopt;
  return Clock::WallTime(std::chrono::seconds(*exp));
}

std::string JwtPodUid(const std::string& token) {
  const auto claims = UnverifiedJwtClaims(token);
  if (!claims) return "";
  return claims->GetString({"kubernetes.io", "pod", "uid"}).value_or("");
}

CachingTokenReviewer::CachingTokenReviewer(TokenReviewer& inner, Clock& clock,
                                           TokenReviewCacheOptions options)
    : inner_(inner), clock_(clock), options_(options), entries_(options.max_entries) {}

std::optional<TokenReviewResult> CachingTokenReviewer::Lookup(const std::string& key) {
  return entries_.Get(key, clock_.Now());
}

void CachingTokenReviewer::Store(const std::string& key, const TokenReviewResult& result,
                                 std::optional<Clock::WallTime> expiry) {
  Clock::Duration ttl = result.authenticated ? options_.max_ttl : options_.negative_ttl;
  if (expiry) {
    ttl = std::min<Clock::Duration>(
        ttl, std::chrono::duration_cast<Clock::Duration>(*expiry - clock_.WallNow()));
  }
  if (ttl <= Clock::Duration::zero()) return;
  entries_.Put(key, result, clock_.Now() + ttl);
}

StatusOr<TokenReviewResult> CachingTokenReviewer::Review(const std::string& token) {
  const std::optional<Clock::WallTime> expiry = JwtExpiry(token);
  if (expiry && *expiry <= clock_.WallNow()) {
    TokenReviewResult expired;
    expired.error =
        "the token expired " +
        std::to_string(
            std::chrono::duration_cast<std::chrono::seconds>(clock_.WallNow() - *expiry).count()) +
        " s ago (exp claim)";
    return expired;
  }
  const std::string key = Sha256(token);
  std::promise<Verdict> promise;
  std::unique_lock<std::mutex> lock(mu_);
  if (auto hit = Lookup(key)) return *hit;
  if (auto it = in_flight_.find(key); it != in_flight_.end()) {
    std::shared_future<Verdict> pending = it->second;
    lock.unlock();
    return pending.get();
  }
  in_flight_.emplace(key, promise.get_future().share());
  lock.unlock();

  Verdict verdict = inner_.Review(token);
  lock.lock();
  if (verdict.ok()) Store(key, *verdict, expiry);
  in_flight_.erase(key);
  lock.unlock();
  promise.set_value(verdict);
  return verdict;
}

void CachingTokenReviewer::Invalidate(const std::string& token) {
  const std::string key = Sha256(token);
  std::lock_guard<std::mutex> l(mu_);
  entries_.Erase(key);
}

size_t CachingTokenReviewer::size() const {
  std::lock_guard<std::mutex> l(mu_);
  return entries_.size();
}

}  // namespace rdmastack::agenthub
