#pragma once
// A controller: informer events -> predicates -> map to requests -> rate-limited workqueue ->
// N workers calling the reconciler (controller-runtime pkg/internal/controller).
// Result handling: error -> rate-limited retry; terminal error -> logged, counted, not retried;
// requeue_after -> forget and add after the delay; success -> forget.

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "operator/runtime/informer.h"
#include "operator/runtime/metrics.h"
#include "operator/runtime/predicates.h"
#include "operator/runtime/reconciler.h"
#include "operator/runtime/workqueue.h"

namespace rdmastack::runtime {

struct ControllerOptions {
  int workers = 1;
  // Null: DefaultControllerRateLimiter.
  std::unique_ptr<RateLimiter> rate_limiter;
};

struct WatchOptions {
  Predicate predicate;
  // When set, a request waits this long before its pass, so that a burst of events (pods turning
  // Ready in a rollout, a thousand node labels) is reconciled once; unset: at once.
  std::function<Clock::Duration(const Request&)> batch;
  // Called with a deleted object before its requests are queued (a reconciler that keeps
  // per-object state forgets it here).
  std::function<void(const k8s::JsonObject&)> on_delete;
};

class Controller {
 public:
  // `metrics` may be null.
  Controller(std::string name, Reconciler& reconciler, Clock& clock, MetricsRegistry* metrics,
             ControllerOptions options = {});
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Enqueues map(object) for events that pass `predicate`. On an update both the old and the new
  // object are mapped (an owner change re-triggers the old owner too).
  void Watch(Informer& informer, MapFunc map, WatchOptions options);
  void Watch(Informer& informer, MapFunc map, Predicate predicate = {});

  void Start();
  // Stops intake and waits up to `drain` for in-flight reconciles; true when all finished in that
  // time. Either way it returns only after every worker thread has been joined.
  bool Stop(Clock::Duration drain);

  // One worker step: takes a key, reconciles it, settles the queue. False once shut down.
  bool ProcessNextItem();

  const std::string& name() const { return name_; }
  WorkQueue& queue() { return queue_; }

 private:
  void Enqueue(const MapFunc& map, const k8s::JsonObject& object,
               const std::function<Clock::Duration(const Request&)>& batch);
  void ReconcileKey(const std::string& key);

  const std::string name_;
  Reconciler& reconciler_;
  Clock& clock_;
  const int workers_;
  WorkQueue queue_;
  std::vector<std::thread> threads_;

  Counter* success_ = nullptr;
  Counter* requeue_after_ = nullptr;
  Counter* error_ = nullptr;
  Counter* errors_total_ = nullptr;
  Counter* terminal_errors_ = nullptr;
  // rdmastack_reconcile_errors_total{controller,reason}: the reason is the Status code's name.
  Family<Counter>* errors_by_reason_ = nullptr;
  Histogram* reconcile_time_ = nullptr;
  Histogram* reconcile_cpu_ = nullptr;
  Gauge* active_workers_ = nullptr;
};

}  // namespace rdmastack::runtime
