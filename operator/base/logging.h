#pragma once
// One place that configures spdlog for every binary: level from flag/env, JSON or text lines.

#include <string_view>

#include "operator/base/status.h"

namespace rdmastack {

enum class LogFormat { kText, kJson };

// level: trace|debug|info|warn|error|off. Returns InvalidArgument for anything else.
Status InitLogging(std::string_view level, LogFormat format = LogFormat::kText);

}  // namespace rdmastack
