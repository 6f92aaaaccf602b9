#include "servers/agenthub/worker_pool.h"

namespace rdmastack::agenthub {

WorkerPool::WorkerPool(int threads, size_t max_queued) : max_queued_(max_queued) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

WorkerPool::~WorkerPool() {
  Stop();
}

bool WorkerPool::TrySubmit(std::function<void()> job) {
  std::lock_guard<std::mutex> l(mu_);
  if (stopping_ || jobs_.size() >= max_queued_) return false;
  jobs_.push_back(std::move(job));
  cv_.notify_one();
  return true;
}

size_t WorkerPool::queued() const {
  std::lock_guard<std::mutex> l(mu_);
  return jobs_.size();
}

void WorkerPool::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void WorkerPool::Run() {
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    cv_.wait(l, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, and nothing left to run
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    l.unlock();
    job();
    l.lock();
  }
}

}  // namespace rdmastack::agenthub
