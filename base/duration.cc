#include "base/duration.h"

#include <cstdint>

namespace rdmastack {

StatusOr<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  auto bad = [&] {
    return InvalidArgumentError("not a duration: '" + std::string(text) +
                                "' (use e.g. 500ms, 15s, 2m, 1h, 1m30s)");
  };
  if (text.empty()) return bad();
  // Below a day in milliseconds, 10^11 leaves room for every unit without overflow.
  constexpr int64_t kMaxMs = int64_t{100'000'000'000};
  int64_t total_ms = 0;
  size_t i = 0;
  while (i < text.size()) {
    int64_t n = 0;
    const size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      n = n * 10 + (text[i] - '0');
      if (n > kMaxMs) return bad();
      ++i;
    }
    if (i == start) return bad();
    size_t unit_end = i;
    while (unit_end < text.size() && (text[unit_end] < '0' || text[unit_end] > '9')) ++unit_end;
    const std::string_view unit = text.substr(i, unit_end - i);
    int64_t scale = 0;
    if (unit == "ms") {
      scale = 1;
    } else if (unit == "s" || (unit.empty() && start == 0 && unit_end == text.size())) {
      scale = 1000;
    } else if (unit == "m") {
      scale = 60'000;
    } else if (unit == "h") {
      scale = 3'600'000;
    } else {
      return bad();
    }
    total_ms += n * scale;
    if (total_ms > kMaxMs) return bad();
    i = unit_end;
  }
  return std::chrono::milliseconds(total_ms);
}

std::string FormatDuration(std::chrono::milliseconds d) {
  int64_t ms = d.count();
  if (ms == 0) return "0s";
  std::string out;
  if (ms < 0) {
    out = "-";
    ms = -ms;
  }
  const int64_t h = ms / 3'600'000, m = ms / 60'000 % 60, s = ms / 1000 % 60, rest = ms % 1000;
  if (h > 0) out += std::to_string(h) + "h";
  if (m > 0) out += std::to_string(m) + "m";
  if (s > 0) out += std::to_string(s) + "s";
  if (rest > 0) out += std::to_string(rest) + "ms";
  return out;
}

}  // namespace rdmastack
