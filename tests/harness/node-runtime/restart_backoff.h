#pragma once
// The kubelet's crash-loop backoff: the first restart is immediate, then 10 s, doubling up to
// 5 min; a container that ran for 10 min is forgiven its earlier crashes.

#include <chrono>

#include "base/clock.h"

namespace rdmastack::sim {

struct RestartBackoffPolicy {
  Clock::Duration initial = std::chrono::seconds(10);
  Clock::Duration max = std::chrono::minutes(5);
  Clock::Duration forgive_after = std::chrono::minutes(10);
};

// Delay before the next start, given the restarts already made since the container last ran for
// `forgive_after`.
Clock::Duration RestartDelay(int restarts_in_window, const RestartBackoffPolicy& policy);

}  // namespace rdmastack::sim
