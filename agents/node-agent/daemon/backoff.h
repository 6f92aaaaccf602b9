#pragma once
// Jittered exponential backoff for reconnects: initial * multiplier^n capped at max, each delay
// spread by +/- jitter so that a fleet of agents does not reconnect in lockstep after an operator
// restart.

#include <chrono>
#include <functional>

namespace rdmastack::agent {

struct BackoffPolicy {
  std::chrono::milliseconds initial{500};
  std::chrono::milliseconds max{30'000};
  double multiplier = 2.0;
  double jitter = 0.2;  // fraction of the delay, both directions
};

class Backoff {
 public:
  // `uniform` returns a value in [0, 1); injected so tests are deterministic.
  Backoff(BackoffPolicy policy, std::function<double()> uniform);

  std::chrono::milliseconds Next();
  void Reset() { attempt_ = 0; }
  int attempts() const { return attempt_; }

 private:
  BackoffPolicy policy_;
  std::function<double()> uniform_;
  int attempt_ = 0;
};

}  // namespace rdmastack::agent
