#pragma once
// RFC 3339 timestamps in the form the Kubernetes API writes metav1.Time: UTC, whole seconds
// ("2026-12-01T08:12:11Z"). Condition transition times and report times use it.

#include <chrono>
#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack {

std::string FormatRfc3339(std::chrono::system_clock::time_point t);
// Accepts "Z" or a numeric offset and an optional fraction (dropped). InvalidArgument otherwise.
StatusOr<std::chrono::system_clock::time_point> ParseRfc3339(std::string_view text);

}  // namespace rdmastack
