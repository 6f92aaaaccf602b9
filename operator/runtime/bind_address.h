#pragma once
// The host:port form of the operator's listen flags (--health-probe-bind-address and the like).

#include <cstdint>
#include <string>

#include "base/status.h"

namespace rdmastack::runtime {

// "127.0.0.1:8080", ":8081" (host "0.0.0.0": every address), "[::1]:0" (port 0 picks a free
// port).
struct BindAddress {
  std::string host;
  uint16_t port = 0;
};
StatusOr<BindAddress> ParseBindAddress(const std::string& text);

}  // namespace rdmastack::runtime
