#pragma once
// The requeue delay of a node-side reconcile that must look again at a wall-clock time (an
// agent's TTL running out, a grace period ending).

#include <algorithm>
#include <chrono>

#include "base/clock.h"

namespace rdmastack::rdmanode {

// From `now` until `at`, at least a second: a time already past is looked at again soon, not in
// a loop.
inline Clock::Duration RecheckIn(Clock::WallTime at, Clock::WallTime now) {
  return std::max<Clock::Duration>(std::chrono::duration_cast<Clock::Duration>(at - now),
                                   std::chrono::seconds(1));
}

}  // namespace rdmastack::rdmanode
