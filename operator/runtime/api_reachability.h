#pragma once
// Since when the API server has answered this process without a break. Clients learn of an
// endpoint's move through the API server; while the operator cannot reach it, they may not be
// able to either, so a drain (GatewayPool's drainSeconds) counts only time after the last outage
// (docs/operations.md, "Upgrades and API outages").
//
// An outage begins with any request the server did not answer: no response at all (refused,
// reset, timed out) or a 5xx. It ends with the first answer to a request the server's storage had
// to serve: a write, or a read of the latest state. A watch or a read at an older version can be
// served from the API server's watch cache while etcd is frozen, so those never end one. With
// leader election the lease renewal, a write every retry period, ends an outage within one.

#include <atomic>
#include <mutex>

#include "base/clock.h"
#include "base/status.h"

namespace rdmastack::runtime {

enum class RequestKind {
  kStorage,  // a write, or a read of the latest state (a quorum read): etcd answers it
  kCache,    // a watch, or a read at a resourceVersion: the watch cache may answer it
};

class ApiReachability {
 public:
  // What happened before this process started is unknown: it counts as an outage that ended now.
  explicit ApiReachability(Clock& clock);

  // Thread-safe; called with every request's outcome.
  void Observe(const Status& outcome, RequestKind kind);
  // The wall time of the first answer after the last outage; now while the outage lasts.
  Clock::WallTime AnsweringSince() const;

  enum class Verdict { kOutage, kAnswer, kNeither };
  // What one request's outcome says: kAnswer only for kStorage requests the server replied to
  // (success or a 4xx other than 429, which priority and fairness sends before any storage).
  static Verdict Judge(const Status& outcome, RequestKind kind);

 private:
  Clock& clock_;
  std::mutex mu_;  // orders the transitions; the steady state reads only the atomics
  std::atomic<bool> answering_{true};
  std::atomic<Clock::WallTime::rep> since_;  // WallTime ticks since the epoch
  Clock::TimePoint outage_began_;            // guarded by mu_
};

}  // namespace rdmastack::runtime
