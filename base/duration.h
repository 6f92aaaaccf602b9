#pragma once
// Durations written the way Kubernetes tools write them: "500ms", "15s", "2m", "1h", "1m30s". A
// bare number means seconds.

#include <chrono>
#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack {

StatusOr<std::chrono::milliseconds> ParseDuration(std::string_view text);

// The shortest such text for `d` ("1m30s", "500ms", "0s").
std::string FormatDuration(std::chrono::milliseconds d);

}  // namespace rdmastack
