#pragma once
// When this process first saw each persisted timestamp of a node's move (a phase's `since`, a
// move's `started`, a maintenance's `since`), on its own monotonic clock. The replica that wrote a
// stamp read its own wall clock; comparing that with ours would let a reader whose clock is behind
// the writer's shorten a drain or a validation timeout (a new leader after a failover, say). So a
// timer counts from the later of the stamp and the moment this process first saw it, measured on
// the monotonic clock: a successor never shortens a drain, and may lengthen one by the time it
// took to take over. The writer's own stamps are seen as it writes them, so its timers keep
// their length (to the second).

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "base/clock.h"

namespace rdmastack::gatewaypool {

class FirstObserved {
 public:
  explicit FirstObserved(Clock& clock) : clock_(clock) {}

  // Records that `stamp` (unix seconds, persisted under `key` for `owner`) is seen now, unless
  // the same stamp was seen before; returns the unix second from which it may be counted here:
  // max(stamp, now_unix - whole seconds since this process first saw it). Thread-safe.
  int64_t CountFrom(const std::string& owner, const std::string& key, int64_t stamp,
                    int64_t now_unix);
  // Drops `owner`'s keys that no CountFrom asked for since its last Sweep.
  void Sweep(const std::string& owner);
  void Forget(const std::string& owner);

 private:
  struct Seen {
    int64_t stamp = 0;
    Clock::TimePoint first;
  };
  struct Owner {
    std::map<std::string, Seen> seen;
    std::set<std::string> used;  // since the last Sweep
  };
  Clock& clock_;
  std::mutex mu_;
  std::map<std::string, Owner> owners_;
};

}  // namespace rdmastack::gatewaypool
