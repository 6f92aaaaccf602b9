#pragma once
// Retry pacing for workqueue items, with client-go's semantics: a per-item exponential backoff and
// a global token bucket, combined by taking the longer of the two delays.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/clock.h"

namespace rdmastack::runtime {

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  // How long `item` should wait before it is retried; records one more failure for it.
  virtual Clock::Duration When(const std::string& item) = 0;
  // The item succeeded: its failure history is cleared.
  virtual void Forget(const std::string& item) = 0;
  virtual int NumRequeues(const std::string& item) const = 0;
};

// base * 2^failures, capped at `max` (client-go ItemExponentialFailureRateLimiter).
class ItemExponentialRateLimiter final : public RateLimiter {
 public:
  ItemExponentialRateLimiter(Clock::Duration base, Clock::Duration max) : base_(base), max_(max) {}
  Clock::Duration When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) const override;

 private:
  const Clock::Duration base_;
  const Clock::Duration max_;
  mutable std::mutex mu_;
  std::map<std::string, int> failures_;
};

// A token bucket shared by all items (client-go BucketRateLimiter over rate.Limiter): each call
// reserves one token; when the bucket is empty the delay is the time until the reserved token
// has been refilled.
class BucketRateLimiter final : public RateLimiter {
 public:
  BucketRateLimiter(const Clock& clock, double qps, int burst);
  Clock::Duration When(const std::string& item) override;
  void Forget(const std::string&) override {}
  int NumRequeues(const std::string&) const override { return 0; }

 private:
  const Clock& clock_;
  const double qps_;
  const double burst_;
  std::mutex mu_;
  double tokens_;
  Clock::TimePoint last_;
};

// The longest delay of its members; Forget/NumRequeues apply to all of them.
class MaxOfRateLimiter final : public RateLimiter {
 public:
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters)
      : limiters_(std::move(limiters)) {}
  Clock::Duration When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) const override;

 private:
  std::vector<std::unique_ptr<RateLimiter>> limiters_;
};

// controller-runtime's default: max(5 ms * 2^n capped at 1000 s, 10 qps with a burst of 100).
std::unique_ptr<RateLimiter> DefaultControllerRateLimiter(const Clock& clock);

}  // namespace rdmastack::runtime
