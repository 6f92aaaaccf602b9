#pragma once
// When a drain ends. A drain lists a gateway's endpoint as terminating for drainSeconds before
// the gateway stops, so that clients move off it first. Clients learn of the move through the API
// server, so time in which the operator could not reach it does not count: a drain that an outage
// cut into lasts drainSeconds from the first answer after it (operator/runtime/api_reachability.h,
// docs/operations.md "Upgrades and API outages").

#include <algorithm>
#include <cstdint>

namespace rdmastack::gatewaypool {

struct DrainClock {
  int64_t now = 0;      // unix seconds
  int64_t seconds = 0;  // the pool's drainSeconds
  // Unix seconds since which the API server has answered the operator without a break.
  int64_t answering_since = 0;

  // The end of a drain that began at `began` (unix seconds).
  int64_t EndOf(int64_t began) const { return std::max(began, answering_since) + seconds; }
  bool Over(int64_t began) const { return now >= EndOf(began); }
};

}  // namespace rdmastack::gatewaypool
