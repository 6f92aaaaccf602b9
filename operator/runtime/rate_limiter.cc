#include "operator/runtime/rate_limiter.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace rdmastack::runtime {

Clock::Duration ItemExponentialRateLimiter::When(const std::string& item) {
  int exponent = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    exponent = failures_[item]++;
  }
  // Computed in floating point so that large exponents saturate at max instead of overflowing.
  const double backoff = static_cast<double>(base_.count()) * std::pow(2.0, exponent);
  if (backoff >= static_cast<double>(max_.count())) return max_;
  return Clock::Duration(static_cast<Clock::Duration::rep>(backoff));
}

void ItemExponentialRateLimiter::Forget(const std::string& item) {
  std::lock_guard<std::mutex> l(mu_);
  failures_.erase(item);
}

int ItemExponentialRateLimiter::NumRequeues(const std::string& item) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = failures_.find(item);
  return it == failures_.end() ? 0 : it->second;
}

BucketRateLimiter::BucketRateLimiter(const Clock& clock, double qps, int burst)
    : clock_(clock), qps_(qps), burst_(burst), tokens_(burst), last_(clock.Now()) {}

Clock::Duration BucketRateLimiter::When(const std::string&) {
  std::lock_guard<std::mutex> l(mu_);
  const Clock::TimePoint now = clock_.Now();
  if (now > last_) {
    const double elapsed_s = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + elapsed_s * qps_);
    last_ = now;
  }
  tokens_ -= 1.0;
  if (tokens_ >= 0) return Clock::Duration::zero();
  return std::chrono::duration_cast<Clock::Duration>(
      std::chrono::duration<double>(-tokens_ / qps_));
}

Clock::Duration MaxOfRateLimiter::When(const std::string& item) {
  Clock::Duration longest = Clock::Duration::zero();
  for (auto& limiter : limiters_) longest = std::max(longest, limiter->When(item));
  return longest;
}

void MaxOfRateLimiter::Forget(const std::string& item) {
  for (auto& limiter : limiters_) limiter->Forget(item);
}

int MaxOfRateLimiter::NumRequeues(const std::string& item) const {
  int most = 0;
  for (const auto& limiter : limiters_) most = std::max(most, limiter->NumRequeues(item));
  return most;
}

std::unique_ptr<RateLimiter> DefaultControllerRateLimiter(const Clock& clock) {
  using namespace std::chrono_literals;
  std::vector<std::unique_ptr<RateLimiter>> limiters;
  limiters.push_back(std::make_unique<ItemExponentialRateLimiter>(5ms, 1000s));
  limiters.push_back(std::make_unique<BucketRateLimiter>(clock, 10.0, 100));
  return std::make_unique<MaxOfRateLimiter>(std::move(limiters));
}

}  // namespace rdmastack::runtime
