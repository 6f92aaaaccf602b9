#pragma once
// client-go's ExponentialBackoffManager as used by the reflector: 800 ms doubling to 30 s, with
// jitter 1.0 (each delay is d + rand[0,1) * d), and back to the initial delay once more than the
// reset period (2 min) has passed since the previous backoff began.

#include <chrono>
#include <functional>

#include "base/clock.h"

namespace rdmastack::runtime {

struct BackoffOptions {
  Clock::Duration initial = std::chrono::milliseconds(800);
  Clock::Duration max = std::chrono::seconds(30);
  double factor = 2.0;
  double jitter = 1.0;
  Clock::Duration reset_after = std::chrono::minutes(2);
};

class Backoff {
 public:
  // `uniform` returns values in [0, 1); tests pass a constant.
  Backoff(BackoffOptions options, std::function<double()> uniform);
  // The next delay, given that a backoff starts at `now`.
  Clock::Duration Next(Clock::TimePoint now);

 private:
  BackoffOptions options_;
  std::function<double()> uniform_;
  Clock::Duration current_;
  bool started_ = false;
  Clock::TimePoint last_start_{};
};

// A thread-safe uniform [0,1) source seeded from the OS.
std::function<double()> RandomUniform();

}  // namespace rdmastack::runtime
