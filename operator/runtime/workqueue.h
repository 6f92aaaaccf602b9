#pragma once
// A rate-limited, delaying work queue of string keys with client-go's guarantees:
//  - de-duplication: an item added several times before it is taken is processed once;
//  - stinginess: an item is never handed to two workers at once; if it is re-added while being
//    processed it is queued again when the worker calls Done;
//  - delayed adds (AddAfter) and rate-limited retries (AddRateLimited / Forget).
// Time comes from the injected Clock, so delays are unit-tested by advancing a FakeClock.
// Delayed items wait in a min-heap by ready time with an index by item (client-go's
// waitForPriorityQueue), so a Get costs O(log n) in the number of waiting items, not O(n).

#include <boost/heap/d_ary_heap.hpp>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "base/clock.h"
#include "operator/runtime/metrics.h"
#include "operator/runtime/rate_limiter.h"

namespace rdmastack::runtime {

class WorkQueue {
 public:
  // `metrics` may be null; otherwise workqueue_depth, workqueue_adds_total and
  // workqueue_retries_total are kept under the label name=`name`.
  WorkQueue(std::string name, Clock& clock, std::unique_ptr<RateLimiter> limiter,
            MetricsRegistry* metrics = nullptr);

  void Add(const std::string& item);
  // Adds `item` once `delay` has passed. If it is already waiting, the earlier time wins.
  void AddAfter(const std::string& item, Clock::Duration delay);
  // AddAfter with the rate limiter's delay for this item; counts a retry.
  void AddRateLimited(const std::string& item);
  // Clears the item's retry history (it was processed successfully).
  void Forget(const std::string& item);
  int NumRequeues(const std::string& item) const;

  // Blocks until an item is ready or the queue is shut down (then nullopt). The caller must call
  // Done(item) when finished with it.
  std::optional<std::string> Get();
  // Non-blocking Get.
  std::optional<std::string> TryGet();
  void Done(const std::string& item);

  // Stops intake: later adds are dropped and Get returns nullopt. Items being processed finish
  // normally; WaitForIdle lets the owner wait for them.
  void ShutDown();
  bool ShuttingDown() const;
  // Waits until no item is being processed, or until `deadline`; true when idle.
  bool WaitForIdle(Clock::TimePoint deadline);

  // Items ready to be taken, including delayed items whose time has come (not counting those
  // still delayed or being processed).
  size_t Len();
  size_t NumWaiting() const;
  size_t NumProcessing() const;

 private:
  // A delayed item: ready time, then the order of the adds among equal times.
  struct Waiting {
    Clock::TimePoint ready;
    uint64_t seq;
    const std::string* item;  // the key of its entry in waiting_index_ (node keys do not move)
  };
  struct ReadyLater {
    bool operator()(const Waiting& a, const Waiting& b) const {
      return a.ready != b.ready ? a.ready > b.ready : a.seq > b.seq;
    }
  };
  // Boost heaps keep the greatest element on top; ReadyLater makes that the earliest ready time.
  using WaitingHeap =
      boost::heap::d_ary_heap<Waiting, boost::heap::arity<4>, boost::heap::mutable_<true>,
                              boost::heap::compare<ReadyLater>>;

  void AddLocked(const std::string& item);
  void PromoteDueLocked();
  std::optional<std::string> PopLocked();
  void UpdateDepthLocked();

  const std::string name_;
  Clock& clock_;
  std::unique_ptr<RateLimiter> limiter_;
  Gauge* depth_ = nullptr;
  Counter* adds_ = nullptr;
  Counter* retries_ = nullptr;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::set<std::string> dirty_;
  std::set<std::string> processing_;
  WaitingHeap waiting_;
  std::unordered_map<std::string, WaitingHeap::handle_type> waiting_index_;
  uint64_t next_seq_ = 0;
  bool shutting_down_ = false;
};

}  // namespace rdmastack::runtime
