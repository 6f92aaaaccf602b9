#pragma once
// Small text helpers of the plugin's renderers and views. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastack::plugin {

// An age the way kubectl prints one (apimachinery's duration.HumanDuration): "45s", "3m12s",
// "25m", "5h3m", "3d4h", "120d".
std::string HumanAge(int64_t seconds);

// Seconds from `rfc3339` to `now` (unix seconds); nullopt when the text is not a timestamp.
std::optional<int64_t> SecondsSince(std::string_view rfc3339, int64_t now);

// `text` made printable (printable.h) and folded at spaces into lines of at most `width` columns,
// each after `indent` (a word longer than a line stays whole). Ends with a newline; "" for empty
// text.
std::string Wrap(std::string_view text, size_t indent, size_t width);

// Up to `limit` of `candidates` that look like a mistyped `name`: an edit distance of at most a
// third of the name's length (at least 2), or one containing the other; closest first.
std::vector<std::string> CloseNames(std::string_view name,
                                    const std::vector<std::string>& candidates, size_t limit = 3);

// `parts` with `separator` between them.
std::string Join(const std::vector<std::string>& parts, std::string_view separator);

// "1 node", "3 nodes".
std::string Count(size_t n, std::string_view noun);

}  // namespace rdmastack::plugin
