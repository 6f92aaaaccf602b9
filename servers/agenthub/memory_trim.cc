#include "servers/agenthub/memory_trim.h"

#include <malloc.h>

#include <algorithm>

namespace rdmastack::agenthub {

Status ValidateMemoryTrimOptions(const MemoryTrimOptions& o) {
  if (!(o.churn_fraction >= 0 && o.churn_fraction <= 1)) {
    return InvalidArgumentError(
        "agent hub: the memory trim churn fraction must be between 0 (off) and 1");
  }
  if (o.sample_interval.count() < 1 || o.min_interval < o.sample_interval) {
    return InvalidArgumentError(
        "agent hub: the memory trim sample interval must be positive and at most its minimum "
        "interval between trims");
  }
  return OkStatus();
}

bool TrimPolicy::Sample(size_t connected, Clock::TimePoint now) {
  if (!started_) {
    started_ = true;
    last_ = peak_ = connected;
    last_trim_ = now;
    return false;
  }
  churn_ += connected > last_ ? connected - last_ : last_ - connected;
  last_ = connected;
  peak_ = std::max(peak_, connected);
  if (options_.churn_fraction <= 0 || now - last_trim_ < options_.min_interval) return false;
  // At least one connection must have come or gone: with none connected there is nothing to trim
  // for until something happens.
  const double needed = options_.churn_fraction * static_cast<double>(std::max<size_t>(peak_, 1));
  if (churn_ == 0 || static_cast<double>(churn_) < needed) return false;
  churn_ = 0;
  peak_ = connected;
  last_trim_ = now;
  return true;
}

MemoryTrimmer::MemoryTrimmer(Clock& clock, MemoryTrimOptions options,
                             std::function<size_t()> connected, std::function<void()> trim)
    : clock_(clock), options_(options), connected_(std::move(connected)), trim_(std::move(trim)) {}

MemoryTrimmer::~MemoryTrimmer() {
  Stop();
}

void MemoryTrimmer::Start() {
  if (options_.churn_fraction <= 0 || thread_.joinable()) return;
  thread_ = std::thread([this] { Run(); });
}

void MemoryTrimmer::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

size_t MemoryTrimmer::trims() const {
  std::lock_guard<std::mutex> l(mu_);
  return trims_;
}

void MemoryTrimmer::Run() {
  TrimPolicy policy(options_);
  std::unique_lock<std::mutex> l(mu_);
  while (!stop_) {
    const auto now = clock_.Now();
    l.unlock();
    const bool trim = policy.Sample(connected_(), now);
    if (trim) trim_();
    l.lock();
    if (trim) ++trims_;
    if (stop_) break;
    clock_.WaitUntil(l, cv_, now + options_.sample_interval);
  }
}

void TrimMallocArenas() {
  (void)malloc_trim(0);
}

}  // namespace rdmastack::agenthub
