#include "agents/node-agent/daemon/backoff.h"

#include <algorithm>
#include <cmath>

namespace rdmastack::agent {

Backoff::Backoff(BackoffPolicy policy, std::function<double()> uniform)
    : policy_(policy), uniform_(std::move(uniform)) {}

std::chrono::milliseconds Backoff::Next() {
  const double base = static_cast<double>(policy_.initial.count()) *
                      std::pow(policy_.multiplier, static_cast<double>(std::min(attempt_, 62)));
  const double capped = std::min(base, static_cast<double>(policy_.max.count()));
  ++attempt_;
  const double spread = capped * policy_.jitter * (2.0 * uniform_() - 1.0);
  return std::chrono::milliseconds(static_cast<int64_t>(std::max(1.0, capped + spread)));
}

}  // namespace rdmastack::agent
