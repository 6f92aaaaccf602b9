#pragma once
// A fixed set of threads running queued jobs, with a bounded queue. The hub authenticates agents
// here: a TokenReview and a Pod read block on the API server, and gRPC's callback threads must
// never block.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace rdmastack::agenthub {

class WorkerPool {
 public:
  WorkerPool(int threads, size_t max_queued);
  ~WorkerPool();  // runs what is queued, then joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // False (and `job` is not run) when max_queued jobs already wait or the pool is stopping.
  bool TrySubmit(std::function<void()> job);
  // Runs the queued jobs, then ends the threads. Idempotent.
  void Stop();
  size_t queued() const;

 private:
  void Run();

  const size_t max_queued_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace rdmastack::agenthub
