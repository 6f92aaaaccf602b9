#include "tests/harness/node-runtime/log_request.h"

#include <charconv>
#include <vector>

namespace rdmastack::sim {
namespace {

constexpr std::string_view kPrefix = "/containerLogs/";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoding; `plus_is_space` for query components (Go's url.QueryUnescape).
StatusOr<std::string> Unescape(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      const int hi = i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
      const int lo = hi >= 0 ? HexValue(s[i + 2]) : -1;
      if (lo < 0) return InvalidArgumentError("bad escape in '" + std::string(s) + "'");
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (s[i] == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

// strconv.ParseBool, which the kubelet's query conversion uses.
StatusOr<bool> ParseBool(const std::string& name, const std::string& v) {
  if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") return true;
  if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False") {
    return false;
  }
  return InvalidArgumentError(name + "=" + v + " is not a boolean");
}

StatusOr<int64_t> ParseCount(const std::string& name, const std::string& v, int64_t min) {
  int64_t n = 0;
  const char* end = v.data() + v.size();
  auto [ptr, ec] = std::from_chars(v.data(), end, n);
  if (v.empty() || ec != std::errc() || ptr != end) {
    return InvalidArgumentError(name + "=" + v + " is not a whole number");
  }
  if (n < min) {
    return InvalidArgumentError(name + "=" + v + " must be at least " + std::to_string(min));
  }
  return n;
}

Status Unsupported(const std::string& what) {
  return InvalidArgumentError(
      what +
      " is not supported by the simulated node runtime (tests/harness/node-runtime): it keeps "
      "each container's output as written, without per-line times or stream tags");
}

Status ApplyParameter(const std::string& name, const std::string& value, LogRequest& r) {
  if (name == "follow") {
    RDMASTACK_ASSIGN_OR_RETURN(r.follow, ParseBool(name, value));
  } else if (name == "previous") {
    RDMASTACK_ASSIGN_OR_RETURN(r.previous, ParseBool(name, value));
  } else if (name == "tailLines") {
    RDMASTACK_ASSIGN_OR_RETURN(r.tail_lines, ParseCount(name, value, 0));
  } else if (name == "limitBytes") {
    RDMASTACK_ASSIGN_OR_RETURN(r.limit_bytes, ParseCount(name, value, 1));
  } else if (name == "timestamps") {
    RDMASTACK_ASSIGN_OR_RETURN(bool on, ParseBool(name, value));
    if (on) return Unsupported("timestamps (kubectl logs --timestamps)");
  } else if (name == "sinceSeconds" || name == "sinceTime") {
    return Unsupported(name + " (kubectl logs --since/--since-time)");
  } else if (name == "stream") {
    if (value != "All") {
      return Unsupported("stream=" + value +
                         " (stdout and stderr go to one file; only stream=All is served)");
    }
  }
  return OkStatus();
}

}  // namespace

StatusOr<LogRequest> ParseLogRequest(std::string_view target) {
  const size_t q = target.find('?');
  const std::string_view path = target.substr(0, q);
  std::string_view query = q == std::string_view::npos ? "" : target.substr(q + 1);
  if (path.substr(0, kPrefix.size()) != kPrefix) {
    return NotFoundError("404 page not found: " + std::string(path));
  }
  std::vector<std::string> parts;
  std::string_view rest = path.substr(kPrefix.size());
  while (true) {
    const size_t slash = rest.find('/');
    RDMASTACK_ASSIGN_OR_RETURN(std::string part, Unescape(rest.substr(0, slash), false));
    parts.push_back(std::move(part));
    if (slash == std::string_view::npos) break;
    rest = rest.substr(slash + 1);
  }
  if (parts.size() != 3 || parts[0].empty() || parts[1].empty() || parts[2].empty()) {
    return NotFoundError("404 page not found: " + std::string(path) +
                         " (want /containerLogs/{namespace}/{pod}/{container})");
  }
  LogRequest r{parts[0], parts[1], parts[2]};
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? "" : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    RDMASTACK_ASSIGN_OR_RETURN(std::string name, Unescape(pair.substr(0, eq), true));
    RDMASTACK_ASSIGN_OR_RETURN(
        std::string value, Unescape(eq == std::string_view::npos ? "" : pair.substr(eq + 1), true));
    RDMASTACK_RETURN_IF_ERROR(ApplyParameter(name, value, r));
  }
  return r;
}

}  // namespace rdmastack::sim
