#include "tests/harness/node-runtime/restart_backoff.h"

namespace rdmastack::sim {

Clock::Duration RestartDelay(int restarts_in_window, const RestartBackoffPolicy& policy) {
  if (restarts_in_window <= 0) return Clock::Duration::zero();
  Clock::Duration delay = policy.initial;
  for (int i = 1; i < restarts_in_window && delay < policy.max; ++i) delay *= 2;
  return delay < policy.max ? delay : policy.max;
}

}  // namespace rdmastack::sim
