#include "tests/harness/node-runtime/log_selection.h"

#include <algorithm>

namespace rdmastack::sim {

size_t TailOffset(std::string_view content, std::optional<int64_t> tail_lines) {
  if (!tail_lines) return 0;
  if (*tail_lines <= 0) return content.size();
  // Walk back over `tail_lines` line ends; a final newline ends the last line, it starts none.
  size_t end = content.size();
  if (end > 0 && content[end - 1] == '\n') --end;
  for (int64_t lines = 0; lines < *tail_lines; ++lines) {
    const size_t nl = end == 0 ? std::string_view::npos : content.rfind('\n', end - 1);
    if (nl == std::string_view::npos) return 0;
    if (lines + 1 == *tail_lines) return nl + 1;
    end = nl;
  }
  return 0;
}

size_t AllowedBytes(size_t available, std::optional<int64_t> limit_bytes, uint64_t sent) {
  if (!limit_bytes) return available;
  const uint64_t limit = static_cast<uint64_t>(*limit_bytes);
  if (sent >= limit) return 0;
  return static_cast<size_t>(std::min<uint64_t>(available, limit - sent));
}

}  // namespace rdmastack::sim
