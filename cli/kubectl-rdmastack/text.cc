#include "cli/kubectl-rdmastack/text.h"

#include <algorithm>
#include <chrono>

#include "base/rfc3339.h"
#include "cli/kubectl-rdmastack/printable.h"

namespace rdmastack::plugin {
namespace {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string HumanAge(int64_t seconds) {
  using std::to_string;
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return to_string(seconds) + "s";
  const int64_t minutes = seconds / 60;
  if (minutes < 10) {
    const int64_t s = seconds % 60;
    return to_string(minutes) + "m" + (s == 0 ? "" : to_string(s) + "s");
  }
  if (minutes < 60 * 3) return to_string(minutes) + "m";
  const int64_t hours = minutes / 60;
  if (hours < 8) {
    const int64_t m = minutes % 60;
    return to_string(hours) + "h" + (m == 0 ? "" : to_string(m) + "m");
  }
  if (hours < 48) return to_string(hours) + "h";
  if (hours < 24 * 8) {
    const int64_t h = hours % 24;
    return to_string(hours / 24) + "d" + (h == 0 ? "" : to_string(h) + "h");
  }
  if (hours < 24 * 365 * 2) return to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    const int64_t d = (hours / 24) % 365;
    return to_string(hours / 24 / 365) + "y" + (d == 0 ? "" : to_string(d) + "d");
  }
  return to_string(hours / 24 / 365) + "y";
}

std::optional<int64_t> SecondsSince(std::string_view rfc3339, int64_t now) {
  auto t = ParseRfc3339(rfc3339);
  if (!t.ok()) return std::nullopt;
  const int64_t then =
      std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count();
  return now - then;
}

std::string Wrap(std::string_view raw, size_t indent, size_t width) {
  // The lines are the ones folded here: a newline inside the text prints as "\n".
  const std::string printable = Printable(raw);
  const std::string_view text = printable;
  const std::string pad(indent, ' ');
  const size_t room = width > indent + 20 ? width - indent : 20;
  std::string out;
  std::string line;
  size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && text[pos] == ' ') ++pos;
    if (pos >= text.size()) break;
    size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(pos, end - pos);
    if (!line.empty() && line.size() + 1 + word.size() > room) {
      out += pad + line + "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    pos = end;
  }
  if (!line.empty()) out += pad + line + "\n";
  return out;
}

std::vector<std::string> CloseNames(std::string_view name,
                                    const std::vector<std::string>& candidates, size_t limit) {
  const size_t allowed = std::max<size_t>(2, name.size() / 3);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& c : candidates) {
    const size_t d = EditDistance(name, c);
    const bool contains =
        !name.empty() && !c.empty() &&
        (c.find(name) != std::string::npos || std::string_view(name).find(c) != std::string::npos);
    if (d <= allowed || contains) scored.emplace_back(d, c);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (const auto& [d, c] : scored) {
    if (out.size() >= limit) break;
    out.push_back(c);
  }
  return out;
}

std::string Count(size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : std::string(separator)) + p;
  return out;
}

}  // namespace rdmastack::plugin
