#include "base/logging.h"

#include <rapidjson/writer.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <mutex>
#include <string>

#include "base/json_chars.h"
#include "base/utf8.h"

namespace rdmastack {
namespace {

constexpr char kLoggerName[] = "rdmastack";

// An output stream for RapidJSON that appends to a string.
struct StringOut {
  using Ch = char;
  std::string& out;
  void Put(char c) { out.push_back(c); }
  void Flush() {}
};

// `text` as a JSON string literal with its quotes, appended to `out`.
void AppendJsonString(std::string_view text, std::string& out) {
  const std::string valid = ValidUtf8(text);
  StringOut stream{out};
  rapidjson::Writer<StringOut> writer(stream);
  writer.String(JsonChars(valid), static_cast<rapidjson::SizeType>(valid.size()));
}

// %* in the JSON pattern: the message as a JSON string.
class JsonMessageFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string quoted;
    AppendJsonString({msg.payload.data(), msg.payload.size()}, quoted);
    dest.append(quoted.data(), quoted.data() + quoted.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonMessageFlag>();
  }
};

std::unique_ptr<spdlog::formatter> MakeFormatter(LogFormat format) {
  if (format == LogFormat::kJson) {
    // Timestamps in UTC to match the Z.
    auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
    formatter->add_flag<JsonMessageFlag>('*').set_pattern(
        R"({"ts":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","msg":%*})");
    return formatter;
  }
  return std::make_unique<spdlog::pattern_formatter>("%Y-%m-%dT%H:%M:%S.%e %^%L%$ %v");
}

}  // namespace

Status InitLogging(std::string_view level, LogFormat format) {
  auto lvl = spdlog::level::from_str(std::string(level));
  // from_str maps unknown names to "off"; only accept "off" when it was asked for.
  if (lvl == spdlog::level::off && level != "off") {
    return InvalidArgumentError("unknown log level '" + std::string(level) +
                                "'; use trace, debug, info, warn, error or off");
  }
  // A second call reconfigures the logger of the first rather than registering another (spdlog
  // refuses a second logger of the same name, and replacing the default logger while other
  // threads log through it is not safe). Sink formatters and the level are safe to change live.
  static std::mutex init_mu;
  std::lock_guard<std::mutex> l(init_mu);
  std::shared_ptr<spdlog::logger> logger = spdlog::get(kLoggerName);
  if (!logger) {
    logger = spdlog::stderr_color_mt(kLoggerName);
    spdlog::set_default_logger(logger);
  }
  logger->set_formatter(MakeFormatter(format));
  logger->set_level(lvl);
  return OkStatus();
}

}  // namespace rdmastack
