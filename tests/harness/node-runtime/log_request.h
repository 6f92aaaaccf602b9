#pragma once
// A kubelet log request as the API server sends it for `kubectl logs` (pods/log):
//   GET /containerLogs/{namespace}/{pod}/{container}?follow=&previous=&tailLines=&limitBytes=...
// parsed into what the simulated node runtime can answer. Pure, so the query rules are unit
// tested (log_request_test.cc).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack::sim {

struct LogRequest {
  std::string ns;
  std::string pod;
  std::string container;
  bool follow = false;
  bool previous = false;
  std::optional<int64_t> tail_lines;   // the last N lines; unset = all
  std::optional<int64_t> limit_bytes;  // at most N bytes in all; unset = no limit
};

// NotFound for a path other than /containerLogs/{ns}/{pod}/{container} (the kubelet's 404);
// InvalidArgument, with a message for the user, for a bad value or a parameter this runtime cannot
// honour: container output is written as it comes, without per-line times or stream tags, so
// `timestamps`, `sinceSeconds`, `sinceTime` and a `stream` other than All are refused rather than
// ignored. Parameters the kubelet does not know are ignored, as it does.
StatusOr<LogRequest> ParseLogRequest(std::string_view target);

}  // namespace rdmastack::sim
