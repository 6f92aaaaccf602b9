#include "operator/runtime/workqueue.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace rdmastack::runtime {

WorkQueue::WorkQueue(std::string name, Clock& clock, std::unique_ptr<RateLimiter> limiter,
                     MetricsRegistry* metrics)
    : name_(std::move(name)), clock_(clock), limiter_(std::move(limiter)) {
  if (metrics == nullptr) return;
  depth_ = &metrics->GaugeFamily("workqueue_depth", "Current depth of workqueue", {"name"})
                .With({name_});
  adds_ = &metrics
               ->CounterFamily("workqueue_adds_total", "Total number of adds handled by workqueue",
                               {"name"})
               .With({name_});
  retries_ = &metrics
                  ->CounterFamily("workqueue_retries_total",
                                  "Total number of retries handled by workqueue", {"name"})
                  .With({name_});
}

void WorkQueue::Add(const std::string& item) {
  std::lock_guard<std::mutex> l(mu_);
  AddLocked(item);
}

void WorkQueue::AddLocked(const std::string& item) {
  if (shutting_down_ || dirty_.count(item) > 0) return;
  if (adds_ != nullptr) adds_->Inc();
  dirty_.insert(item);
  // An item being processed is re-queued by Done, so that it never runs twice concurrently.
  if (processing_.count(item) > 0) return;
  queue_.push_back(item);
  UpdateDepthLocked();
  cv_.notify_one();
}

void WorkQueue::AddAfter(const std::string& item, Clock::Duration delay) {
  std::lock_guard<std::mutex> l(mu_);
  if (shutting_down_) return;
  if (delay <= Clock::Duration::zero()) {
    AddLocked(item);
    return;
  }
  const Clock::TimePoint ready = clock_.Now() + delay;
  auto [it, inserted] = waiting_index_.try_emplace(item);
  if (inserted) {
    it->second = waiting_.push(Waiting{ready, next_seq_++, &it->first});
  } else if (ready < (*it->second).ready) {
    waiting_.increase(it->second, Waiting{ready, next_seq_++, &it->first});
  } else {
    return;
  }
  // A blocked Get recomputes how long to wait.
  cv_.notify_all();
}

void WorkQueue::AddRateLimited(const std::string& item) {
  const Clock::Duration delay = limiter_->When(item);
  if (retries_ != nullptr) retries_->Inc();
  AddAfter(item, delay);
}

void WorkQueue::Forget(const std::string& item) {
  limiter_->Forget(item);
}

int WorkQueue::NumRequeues(const std::string& item) const {
  return limiter_->NumRequeues(item);
}

void WorkQueue::PromoteDueLocked() {
  if (waiting_.empty()) return;
  const Clock::TimePoint now = clock_.Now();
  while (!waiting_.empty() && waiting_.top().ready <= now) {
    auto entry = waiting_index_.find(*waiting_.top().item);
    waiting_.pop();
    AddLocked(entry->first);
    waiting_index_.erase(entry);
  }
}

std::optional<std::string> WorkQueue::PopLocked() {
  if (shutting_down_ || queue_.empty()) return std::nullopt;
  std::string item = std::move(queue_.front());
  queue_.pop_front();
  processing_.insert(item);
  dirty_.erase(item);
  UpdateDepthLocked();
  return item;
}

std::optional<std::string> WorkQueue::Get() {
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    PromoteDueLocked();
    if (shutting_down_) return std::nullopt;
    if (auto item = PopLocked()) return item;
    // Wake for the earliest delayed item; without one, re-check periodically (adds notify).
    Clock::TimePoint deadline = clock_.Now() + std::chrono::seconds(10);
    if (!waiting_.empty()) deadline = std::min(deadline, waiting_.top().ready);
    clock_.WaitUntil(l, cv_, deadline);
  }
}

std::optional<std::string> WorkQueue::TryGet() {
  std::lock_guard<std::mutex> l(mu_);
  PromoteDueLocked();
  return PopLocked();
}

void WorkQueue::Done(const std::string& item) {
  std::lock_guard<std::mutex> l(mu_);
  processing_.erase(item);
  if (dirty_.count(item) > 0 && !shutting_down_) {
    queue_.push_back(item);
    UpdateDepthLocked();
  }
  cv_.notify_all();
}

void WorkQueue::ShutDown() {
  std::lock_guard<std::mutex> l(mu_);
  shutting_down_ = true;
  cv_.notify_all();
}

bool WorkQueue::ShuttingDown() const {
  std::lock_guard<std::mutex> l(mu_);
  return shutting_down_;
}

bool WorkQueue::WaitForIdle(Clock::TimePoint deadline) {
  std::unique_lock<std::mutex> l(mu_);
  while (!processing_.empty()) {
    if (clock_.Now() >= deadline) return false;
    clock_.WaitUntil(l, cv_, deadline);
  }
  return true;
}

size_t WorkQueue::Len() {
  std::lock_guard<std::mutex> l(mu_);
  PromoteDueLocked();
  return queue_.size();
}

size_t WorkQueue::NumWaiting() const {
  std::lock_guard<std::mutex> l(mu_);
  return waiting_.size();
}

size_t WorkQueue::NumProcessing() const {
  std::lock_guard<std::mutex> l(mu_);
  return processing_.size();
}

void WorkQueue::UpdateDepthLocked() {
  if (depth_ != nullptr) depth_->Set(static_cast<double>(queue_.size()));
}

}  // namespace rdmastack::runtime
