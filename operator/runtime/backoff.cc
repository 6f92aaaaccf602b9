#include "operator/runtime/backoff.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <random>

namespace rdmastack::runtime {

Backoff::Backoff(BackoffOptions options, std::function<double()> uniform)
    : options_(options), uniform_(std::move(uniform)), current_(options.initial) {}

Clock::Duration Backoff::Next(Clock::TimePoint now) {
  if (!started_ || now - last_start_ > options_.reset_after) current_ = options_.initial;
  started_ = true;
  last_start_ = now;
  const Clock::Duration base = current_;
  const auto scaled = std::chrono::duration_cast<Clock::Duration>(
      std::chrono::duration<double, Clock::Duration::period>(base.count() * options_.factor));
  current_ = std::min(scaled, options_.max);
  if (options_.jitter <= 0) return base;
  const double extra = uniform_() * options_.jitter * static_cast<double>(base.count());
  return base + Clock::Duration(static_cast<Clock::Duration::rep>(extra));
}

std::function<double()> RandomUniform() {
  struct Source {
    std::mutex mu;
    std::mt19937_64 engine{std::random_device{}()};
    std::uniform_real_distribution<double> dist{0.0, 1.0};
  };
  auto source = std::make_shared<Source>();
  return [source] {
    std::lock_guard<std::mutex> l(source->mu);
    return source->dist(source->engine);
  };
}

}  // namespace rdmastack::runtime
