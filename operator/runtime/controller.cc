#include "operator/runtime/controller.h"

#include <spdlog/spdlog.h>
#include <time.h>

#include <exception>

namespace rdmastack::runtime {
namespace {

double ThreadCpuSeconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

Controller::Controller(std::string name, Reconciler& reconciler, Clock& clock,
                       MetricsRegistry* metrics, ControllerOptions options)
    : name_(std::move(name)),
      reconciler_(reconciler),
      clock_(clock),
      workers_(std::max(1, options.workers)),
      queue_(name_, clock,
             options.rate_limiter ? std::move(options.rate_limiter)
                                  : DefaultControllerRateLimiter(clock),
             metrics) {
  if (metrics == nullptr) return;
  auto& total = metrics->CounterFamily("controller_runtime_reconcile_total",
                                       "Total number of reconciliations per controller",
                                       {"controller", "result"});
  success_ = &total.With({name_, "success"});
  requeue_after_ = &total.With({name_, "requeue_after"});
  error_ = &total.With({name_, "error"});
  errors_total_ =
      &metrics
           ->CounterFamily("controller_runtime_reconcile_errors_total",
                           "Total number of reconciliation errors per controller", {"controller"})
           .With({name_});
  terminal_errors_ =
      &metrics
           ->CounterFamily("controller_runtime_terminal_reconcile_errors_total",
                           "Total number of terminal reconciliation errors per controller",
                           {"controller"})
           .With({name_});
  errors_by_reason_ = &metrics->CounterFamily(
      "rdmastack_reconcile_errors_total",
      "Reconcile errors per controller by reason (the error's status code: Unavailable, "
      "Aborted, InvalidArgument, ...).",
      {"controller", "reason"});
  reconcile_time_ = &metrics
                         ->HistogramFamily("controller_runtime_reconcile_time_seconds",
                                           "Length of time per reconciliation per controller",
                                           {"controller"}, ReconcileTimeBuckets())
                         .With({name_});
  // Wall time counts the waits for the API server and for a core; on a busy node only the thread's
  // CPU time says what a pass itself costs.
  reconcile_cpu_ = &metrics
                        ->HistogramFamily("rdmastack_reconcile_cpu_seconds",
                                          "CPU time of the reconciling thread per reconciliation "
                                          "per controller (waits for the API server or a core "
                                          "excluded).",
                                          {"controller"}, ReconcileTimeBuckets())
                        .With({name_});
  active_workers_ =
      &metrics
           ->GaugeFamily("controller_runtime_active_workers",
                         "Number of currently used workers per controller", {"controller"})
           .With({name_});
  metrics
      ->GaugeFamily("controller_runtime_max_concurrent_reconciles",
                    "Maximum number of concurrent reconciles per controller", {"controller"})
      .With({name_})
      .Set(workers_);
}

Controller::~Controller() {
  Stop(std::chrono::seconds(0));
}

void Controller::Enqueue(const MapFunc& map, const k8s::JsonObject& object,
                         const std::function<Clock::Duration(const Request&)>& batch) {
  for (const Request& r : map(object)) {
    if (batch) {
      queue_.AddAfter(r.Key(), batch(r));
    } else {
      queue_.Add(r.Key());
    }
  }
}

void Controller::Watch(Informer& informer, MapFunc map, Predicate predicate) {
  WatchOptions options;
  options.predicate = std::move(predicate);
  Watch(informer, std::move(map), std::move(options));
}

void Controller::Watch(Informer& informer, MapFunc map, WatchOptions options) {
  EventHandler h;
  const Predicate& p = options.predicate;
  h.on_add = [this, map, p, batch = options.batch](const ObjectPtr& o) {
    if (!p.create || p.create(*o)) Enqueue(map, *o, batch);
  };
  h.on_update = [this, map, p, batch = options.batch](const ObjectPtr& old,
                                                      const ObjectPtr& current) {
    if (p.update && !p.update(*old, *current)) return;
    Enqueue(map, *old, batch);
    Enqueue(map, *current, batch);
  };
  h.on_delete = [this, map, p, batch = options.batch,
                 forget = options.on_delete](const ObjectPtr& o) {
    if (forget) forget(*o);
    if (!p.del || p.del(*o)) Enqueue(map, *o, batch);
  };
  informer.AddEventHandler(std::move(h));
}

void Controller::Start() {
  if (!threads_.empty()) return;
  for (int i = 0; i < workers_; ++i) {
    threads_.emplace_back([this] {
      while (ProcessNextItem()) {
      }
    });
  }
}

bool Controller::Stop(Clock::Duration drain) {
  queue_.ShutDown();
  const bool idle = queue_.WaitForIdle(clock_.Now() + drain);
  if (!idle) {
    spdlog::warn("controller {}: reconciles still running after the drain period; waiting for them",
                 name_);
  }
  // Workers are always joined: a detached one would outlive the reconciler and this object. A
  // reconcile cannot hang here for long: every API call it makes is bounded by its request
  // timeout, and after a lost lease by the leader fence (leader_fenced_client.h).
  for (auto& t : threads_) t.join();
  threads_.clear();
  return idle;
}

bool Controller::ProcessNextItem() {
  auto key = queue_.Get();
  if (!key) return false;
  if (active_workers_ != nullptr) active_workers_->Inc();
  ReconcileKey(*key);
  if (active_workers_ != nullptr) active_workers_->Dec();
  queue_.Done(*key);
  return true;
}

void Controller::ReconcileKey(const std::string& key) {
  const Request request = Request::FromKey(key);
  const Clock::TimePoint start = clock_.Now();
  const double cpu_start = ThreadCpuSeconds();
  StatusOr<Result> result = InternalError("reconciler did not return");
  try {
    result = reconciler_.Reconcile(request);
  } catch (const std::exception& e) {
    result = InternalError(std::string("reconciler threw: ") + e.what());
  } catch (...) {
    result = InternalError("reconciler threw a non-standard exception");
  }
  if (reconcile_time_ != nullptr) {
    reconcile_time_->Observe(std::chrono::duration<double>(clock_.Now() - start).count());
  }
  if (reconcile_cpu_ != nullptr) reconcile_cpu_->Observe(ThreadCpuSeconds() - cpu_start);
  auto inc = [](Counter* c) {
    if (c != nullptr) c->Inc();
  };
  if (!result.ok()) {
    inc(error_);
    inc(errors_total_);
    if (errors_by_reason_ != nullptr) {
      errors_by_reason_->With({name_, std::string(StatusCodeName(result.status().code()))}).Inc();
    }
    if (IsTerminalError(result.status())) {
      inc(terminal_errors_);
      queue_.Forget(key);
      spdlog::error("controller {}: {}: terminal error, not retrying: {}", name_, key,
                    result.status().ToString());
      return;
    }
    spdlog::warn("controller {}: {}: {} (retry {})", name_, key, result.status().ToString(),
                 queue_.NumRequeues(key) + 1);
    queue_.AddRateLimited(key);
    return;
  }
  queue_.Forget(key);
  if (result->requeue_after > Clock::Duration::zero()) {
    inc(requeue_after_);
    queue_.AddAfter(key, result->requeue_after);
    return;
  }
  inc(success_);
}

}  // namespace rdmastack::runtime
