#include "operator/base/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <string>

namespace rdmastack {

Status InitLogging(std::string_view level, LogFormat format) {
  auto lvl = spdlog::level::from_str(std::string(level));
  // from_str maps unknown names to "off"; only accept "off" when it was asked for.
  if (lvl == spdlog::level::off && level != "off") {
    return InvalidArgumentError("unknown log level '" + std::string(level) +
                                "'; use trace, debug, info, warn, error or off");
  }
  auto logger = spdlog::stderr_color_mt("rdmastack");
  spdlog::set_default_logger(logger);
  spdlog::set_level(lvl);
  if (format == LogFormat::kJson) {
    spdlog::set_pattern(R"({"ts":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","msg":"%v"})",
                        spdlog::pattern_time_type::utc);
  } else {
    spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%L%$ %v");
  }
  return OkStatus();
}

}  // namespace rdmastack
