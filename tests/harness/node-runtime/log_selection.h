#pragma once
// Which bytes of a container's log file a request gets: the last tailLines lines, then no more
// than limitBytes in all (counted over the first answer and whatever follow adds). Pure; unit
// tested in log_selection_test.cc.

#include <cstdint>
#include <optional>
#include <string_view>

namespace rdmastack::sim {

// Where the last `tail_lines` lines of `content` begin (0 when unset or when there are fewer). A
// last line without its newline counts as a line, as the kubelet counts it; 0 lines = the end.
size_t TailOffset(std::string_view content, std::optional<int64_t> tail_lines);

// How many of `available` bytes may still be sent when `sent` have gone already.
size_t AllowedBytes(size_t available, std::optional<int64_t> limit_bytes, uint64_t sent);

}  // namespace rdmastack::sim
