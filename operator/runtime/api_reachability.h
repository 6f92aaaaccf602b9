#pragma once
// Since when the API server has answered this process without a break. Clients learn of an
// endpoint's move through the API server; while the operator cannot reach it, they may not be
// able to either, so a drain (GatewayPool's drainSeconds) counts only time after the last outage
// (docs/operations.md, "Upgrades and API outages").
//
// An outage is any of:
// - a request the server did not answer: no response at all (refused, reset, timed out) or a 5xx;
// - a request that needs the server's storage (a write, or a read of the latest state) and has
//   waited longer than `slow` for its answer: with etcd frozen, writes hang rather than fail.
// It ends with the first answer to such a storage request, once none has waited longer than
// `slow`. A watch or a read at an older version can be served from the API server's watch cache
// while etcd is frozen, so those never end one. With leader election the lease renewal, a write
// every retry period, keeps a storage request going.

#include <mutex>
#include <set>

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
  explicit ApiReachability(Clock& clock, Clock::Duration slow = std::chrono::seconds(5));

  // Thread-safe. Begin when a request is sent; End with its outcome and what Begin returned.
  Clock::TimePoint Begin(RequestKind kind);
  void End(RequestKind kind, Clock::TimePoint begun, const Status& outcome);
  // The wall time of the first answer after the last outage; now while an outage lasts.
  Clock::WallTime AnsweringSince() const;

  enum class Verdict { kOutage, kAnswer, kNeither };
  // What one request's outcome says: kAnswer only for kStorage requests the server answered from
  // its storage (success, 404, 409, 410, 422); 400, 401, 403 and 429 come before any storage.
  static Verdict Judge(const Status& outcome, RequestKind kind);

 private:
  bool WaitingTooLong(Clock::TimePoint now) const;  // mu_ held

  Clock& clock_;
  const Clock::Duration slow_;
  mutable std::mutex mu_;
  bool answering_ = true;
  Clock::WallTime since_;
  Clock::TimePoint outage_began_;
  std::multiset<Clock::TimePoint> waiting_;  // send times of the storage requests in flight
};

}  // namespace rdmastack::runtime
