#pragma once
// One place that configures spdlog for every binary: level from flag/env, JSON or text lines.

#include <string_view>

#include "base/status.h"

namespace rdmastack {

enum class LogFormat { kText, kJson };

// level: trace|debug|info|warn|error|off. Returns InvalidArgument for anything else.
// May be called again (and while other threads log): the same logger and sink are reconfigured,
// so the last call's level and format win and every message is still written once.
// In JSON every line is one object {"ts","level","msg"}; the message is escaped so that any
// bytes give valid JSON (bytes that are not valid UTF-8 become U+FFFD).
Status InitLogging(std::string_view level, LogFormat format = LogFormat::kText);

}  // namespace rdmastack
