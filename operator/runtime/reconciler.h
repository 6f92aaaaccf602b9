#pragma once
// What a controller calls (controller-runtime pkg/reconcile). Reconciliation is level-based: the
// reconciler reads the current state for the key and drives the world towards it; it is told
// nothing about which change triggered it.

#include <chrono>
#include <string>

#include "base/clock.h"
#include "base/status.h"

namespace rdmastack::runtime {

struct Request {
  std::string ns;  // "" for cluster-scoped objects
  std::string name;

  std::string Key() const { return ns.empty() ? name : ns + "/" + name; }
  static Request FromKey(const std::string& key);
  friend auto operator<=>(const Request&, const Request&) = default;
};

struct Result {
  // > 0: reconcile this key again after this long (and forget its failure history).
  Clock::Duration requeue_after = Clock::Duration::zero();
};

class Reconciler {
 public:
  virtual ~Reconciler() = default;
  // An error is retried with the rate limiter's backoff, unless it is terminal.
  virtual StatusOr<Result> Reconcile(const Request& request) = 0;
};

// Marks an error as not worth retrying (bad spec that only a user edit can fix): the controller
// logs and counts it, and does not requeue.
Status TerminalError(Status status);
bool IsTerminalError(const Status& status);

}  // namespace rdmastack::runtime
