#pragma once
// Records events.k8s.io/v1 Events about objects, aggregating repeats into series
// (event_series.h) and writing them from a background thread so that reconcilers never block on
// the API server. Failed writes are retried (up to 12 tries, 10 s apart) unless the server
// rejected the event itself. At most max_queued writes wait (client-go's 1000): while the API
// server is slow or hanging, further events are dropped and counted in
// rdmastack_events_dropped_total rather than held in memory.

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "base/clock.h"
#include "operator/k8s/client.h"
#include "operator/runtime/event_series.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::runtime {

enum class EventType { kNormal, kWarning };

class EventRecorder {
 public:
  virtual ~EventRecorder() = default;
  // reason and action: short CamelCase; note: what a human should know (truncated to 1 kB).
  virtual void Record(const k8s::JsonObject& regarding, EventType type, const std::string& reason,
                      const std::string& action, const std::string& note) = 0;
  // The same, about `regarding` in relation to `related` (a pool's event about one of its nodes):
  // each related object gets a series of its own. Recorders that keep no relation ignore it.
  virtual void RecordRelated(const k8s::JsonObject& regarding, const k8s::JsonObject& related,
                             EventType type, const std::string& reason, const std::string& action,
                             const std::string& note) {
    (void)related;
    Record(regarding, type, reason, action, note);
  }
};

struct EventRecorderOptions {
  std::string reporting_controller;  // e.g. rdmastack.io/operator
  std::string reporting_instance;    // e.g. the pod name
  EventSeriesOptions series;
  Clock::Duration tick_interval = std::chrono::seconds(30);  // series housekeeping
  int max_tries = 12;
  Clock::Duration retry_interval = std::chrono::seconds(10);
  size_t max_queued = 1000;  // writes waiting for the writer thread; more are dropped
};

ObjectRef ObjectRefFor(const k8s::JsonObject& object);
// The Event object for a record (pure; for tests and the writer).
k8s::JsonObject EventObject(const EventRecord& record, const EventRecorderOptions& options);

class ApiEventRecorder final : public EventRecorder {
 public:
  // `metrics` may be null; otherwise drops are counted in rdmastack_events_dropped_total.
  ApiEventRecorder(k8s::Client& client, Clock& clock, EventRecorderOptions options,
                   MetricsRegistry* metrics = nullptr);
  ~ApiEventRecorder() override;

  void Record(const k8s::JsonObject& regarding, EventType type, const std::string& reason,
              const std::string& action, const std::string& note) override;
  void RecordRelated(const k8s::JsonObject& regarding, const k8s::JsonObject& related,
                     EventType type, const std::string& reason, const std::string& action,
                     const std::string& note) override;
  // Starts the writer thread; Stop() ends it after the write in progress.
  void Start();
  void Stop();
  // Blocks until every decided write has been attempted (for tests and shutdown).
  void Flush();

 private:
  void Observe(EventSpec spec);
  void WriterLoop();
  // Queues a write unless max_queued are already waiting (then counts a drop).
  void EnqueueLocked(EventDecision decision);
  // One write with retries; returns when written, rejected, or stopped.
  void Write(const EventDecision& decision);
  Status WriteOnce(const EventDecision& decision);

  k8s::Client& client_;
  Clock& clock_;
  const EventRecorderOptions options_;
  Counter* dropped_ = nullptr;

  std::mutex mu_;
  std::condition_variable cv_;
  EventSeriesCache cache_;
  std::deque<EventDecision> pending_;
  int in_flight_ = 0;
  bool stopped_ = false;
  std::thread writer_;
};

}  // namespace rdmastack::runtime
