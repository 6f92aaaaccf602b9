#include "node/probe/parsers.h"

#include <charconv>
#include <cstdio>
#include <limits>

namespace rdmastack::node {
namespace {

std::string Quote(std::string_view text) {
  constexpr size_t kShown = 40;
  std::string out = "'";
  for (char c : text.substr(0, kShown)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (text.size() > kShown) out += "...";
  return out + "'";
}

std::vector<std::string_view> SplitChar(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (true) {
    size_t j = text.find(sep, i);
    if (j == std::string_view::npos) {
      out.push_back(text.substr(i));
      return out;
    }
    out.push_back(text.substr(i, j - i));
    i = j + 1;
  }
}

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The whole of `text` (trimmed) as a base-10 T; `what` names the kind in the error.
template <typename T>
StatusOr<T> ParseBase10(std::string_view text, const char* what) {
  std::string_view t = Trim(text);
  T value = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value, 10);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size()) {
    return InvalidArgumentError(std::string("not a ") + what + ": " + Quote(text));
  }
  return value;
}

}  // namespace

std::vector<std::string_view> SplitWhitespace(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t') ++j;
    if (j > i) out.push_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\n' ||
                           text.front() == '\r')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' ||
                           text.back() == '\r' || text.back() == '\0')) {
    text.remove_suffix(1);
  }
  return text;
}

Status ForEachContentLine(std::string_view text,
                          const std::function<Status(std::string_view line)>& on_line) {
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = Trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    Status st = on_line(line);
    if (!st.ok()) return st.WithContext("line " + std::to_string(line_no));
  }
  return OkStatus();
}

StatusOr<uint64_t> ParseHex(std::string_view text) {
  std::string_view t = Trim(text);
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
  if (t.empty() || t.size() > 16) return InvalidArgumentError("not a hex number: " + Quote(text));
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value, 16);
  if (ec != std::errc() || ptr != t.data() + t.size()) {
    return InvalidArgumentError("not a hex number: " + Quote(text));
  }
  return value;
}

StatusOr<int64_t> ParseDecimal(std::string_view text) {
  return ParseBase10<int64_t>(text, "number");
}

StatusOr<uint64_t> ParseCounter(std::string_view text) {
  return ParseBase10<uint64_t>(text, "counter");
}

StatusOr<std::vector<PciResource>> ParsePciResource(std::string_view text) {
  std::vector<PciResource> out;
  int line_no = 0;
  for (std::string_view line : SplitChar(text, '\n')) {
    ++line_no;
    if (Trim(line).empty()) continue;
    auto fields = SplitWhitespace(Trim(line));
    if (fields.size() != 3) {
      return InvalidArgumentError("line " + std::to_string(line_no) + ": want 3 fields, got " +
                                  std::to_string(fields.size()));
    }
    PciResource r;
    uint64_t* slots[3] = {&r.start, &r.end, &r.flags};
    for (size_t i = 0; i < 3; ++i) {
      auto v = ParseHex(fields[i]);
      if (!v.ok()) {
        return InvalidArgumentError("line " + std::to_string(line_no) + ": " +
                                    v.status().message());
      }
      *slots[i] = *v;
    }
    if (!r.Empty() && r.end < r.start) {
      return InvalidArgumentError("line " + std::to_string(line_no) + ": end before start");
    }
    out.push_back(r);
    if (out.size() > 64) return InvalidArgumentError("more than 64 resource lines");
  }
  if (out.empty()) return InvalidArgumentError("no resource lines");
  return out;
}

StatusOr<Bar1Location> FindGpuBar1(const std::vector<PciResource>& lines) {
  // Only the six standard BAR registers; the ROM and SR-IOV lines come after.
  const int standard = static_cast<int>(std::min<size_t>(lines.size(), 6));
  int bar0 = -1;
  for (int i = 0; i < standard; ++i) {
    if (lines[i].IsMemory() && lines[i].Size() > 0) {
      bar0 = i;
      break;
    }
  }
  if (bar0 < 0) return NotFoundError("no memory BAR among the first six resource lines");
  int next = bar0 + (lines[bar0].Is64Bit() ? 2 : 1);
  for (int i = next; i < standard; ++i) {
    const PciResource& r = lines[i];
    if (!r.IsMemory() || r.Size() == 0) continue;
    Bar1Location loc{i, r.Size(), r.IsPrefetchable() && r.Is64Bit(), ""};
    if (loc.expected_flags) return loc;
    break;
  }
  // Unexpected layout: take the largest 64-bit prefetchable memory BAR and say so.
  Bar1Location best;
  for (int i = 0; i < standard; ++i) {
    const PciResource& r = lines[i];
    if (r.IsMemory() && r.IsPrefetchable() && r.Is64Bit() && r.Size() > best.size) {
      best = Bar1Location{i, r.Size(), false, ""};
    }
  }
  if (best.index < 0) return NotFoundError("no 64-bit prefetchable memory BAR");
  best.note = "unexpected BAR layout; used the largest 64-bit prefetchable BAR (line " +
              std::to_string(best.index) + ")";
  return best;
}

StatusOr<GidBytes> ParseGid(std::string_view text) {
  std::string_view t = Trim(text);
  auto groups = SplitChar(t, ':');
  if (groups.size() != 8) return InvalidArgumentError("GID needs 8 groups: " + Quote(text));
  GidBytes gid{};
  for (size_t g = 0; g < 8; ++g) {
    if (groups[g].size() != 4)
      return InvalidArgumentError("GID group not 4 hex digits: " + Quote(text));
    int v = 0;
    for (char c : groups[g]) {
      int d = HexDigit(c);
      if (d < 0) return InvalidArgumentError("GID has a non-hex digit: " + Quote(text));
      v = v * 16 + d;
    }
    gid[g * 2] = static_cast<uint8_t>(v >> 8);
    gid[g * 2 + 1] = static_cast<uint8_t>(v & 0xff);
  }
  return gid;
}

std::string FormatGid(const GidBytes& gid) {
  std::string out;
  char buf[8];
  for (size_t g = 0; g < 8; ++g) {
    std::snprintf(buf, sizeof buf, "%02x%02x", gid[g * 2], gid[g * 2 + 1]);
    if (g) out += ':';
    out += buf;
  }
  return out;
}

bool GidIsZero(const GidBytes& gid) {
  for (uint8_t b : gid) {
    if (b) return false;
  }
  return true;
}

bool GidIsLinkLocal(const GidBytes& gid) {
  return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80;
}

StatusOr<uint32_t> ParseIpv4(std::string_view text) {
  auto parts = SplitChar(Trim(text), '.');
  if (parts.size() != 4) return InvalidArgumentError("not an IPv4 address: " + Quote(text));
  uint32_t addr = 0;
  for (auto p : parts) {
    if (!IsDigits(p) || p.size() > 3)
      return InvalidArgumentError("not an IPv4 address: " + Quote(text));
    int v = 0;
    std::from_chars(p.data(), p.data() + p.size(), v);
    if (v > 255) return InvalidArgumentError("not an IPv4 address: " + Quote(text));
    addr = (addr << 8) | static_cast<uint32_t>(v);
  }
  return addr;
}

StatusOr<std::string> Ipv4MappedGid(std::string_view ipv4) {
  RDMASTACK_ASSIGN_OR_RETURN(uint32_t addr, ParseIpv4(ipv4));
  char buf[64];
  std::snprintf(buf, sizeof buf, "0000:0000:0000:0000:0000:ffff:%04x:%04x", (addr >> 16) & 0xffff,
                addr & 0xffff);
  return std::string(buf);
}

StatusOr<GidBytes> GidFromIpoibAddress(std::string_view hwaddr) {
  auto bytes = SplitChar(Trim(hwaddr), ':');
  if (bytes.size() != 20) {
    return InvalidArgumentError("IPoIB address needs 20 bytes: " + Quote(hwaddr));
  }
  GidBytes gid{};
  for (size_t i = 0; i < 20; ++i) {
    if (bytes[i].size() != 2 || HexDigit(bytes[i][0]) < 0 || HexDigit(bytes[i][1]) < 0) {
      return InvalidArgumentError("IPoIB address byte not hex: " + Quote(hwaddr));
    }
    if (i >= 4)
      gid[i - 4] = static_cast<uint8_t>(HexDigit(bytes[i][0]) * 16 + HexDigit(bytes[i][1]));
  }
  return gid;
}

StatusOr<NumberedState> ParseNumberedState(std::string_view text) {
  std::string_view t = Trim(text);
  size_t colon = t.find(':');
  if (colon == std::string_view::npos)
    return InvalidArgumentError("want 'N: NAME': " + Quote(text));
  auto code = ParseDecimal(t.substr(0, colon));
  if (!code.ok() || *code < 0 || *code > 255) {
    return InvalidArgumentError("want 'N: NAME': " + Quote(text));
  }
  std::string_view name = Trim(t.substr(colon + 1));
  if (name.empty()) return InvalidArgumentError("want 'N: NAME': " + Quote(text));
  return NumberedState{static_cast<int>(*code), std::string(name)};
}

StatusOr<std::vector<ProcModule>> ParseProcModules(std::string_view text) {
  std::vector<ProcModule> out;
  int line_no = 0;
  for (std::string_view line : SplitChar(text, '\n')) {
    ++line_no;
    if (Trim(line).empty()) continue;
    auto f = SplitWhitespace(line);
    if (f.size() < 6 || !IsDigits(f[1]) || !(IsDigits(f[2]) || f[2] == "-")) {
      return InvalidArgumentError("line " + std::to_string(line_no) +
                                  " is not a module line: " + Quote(line));
    }
    ProcModule m;
    m.name = std::string(f[0]);
    m.state = std::string(f[4]);
    if (f[3] != "-") {
      for (auto dep : SplitChar(f[3], ',')) {
        if (!dep.empty()) m.used_by.emplace_back(dep);
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::optional<OfedVersion> ParseOfedVersion(std::string_view text) {
  // ^\d{1,2}\.\d{1,2}-\d  (MOFED 5.8-1.0.1 and DOCA-OFED 24.10-1.1.4 share this shape;
  // distro kernels use "5.14.0-..." with three dotted parts, which the dash position rules out).
  std::string_view t = Trim(text);
  size_t dot = t.find('.');
  size_t dash = t.find('-');
  if (dot == std::string_view::npos || dash == std::string_view::npos || dash < dot)
    return std::nullopt;
  std::string_view maj = t.substr(0, dot);
  std::string_view min = t.substr(dot + 1, dash - dot - 1);
  if (!IsDigits(maj) || maj.size() > 2 || !IsDigits(min) || min.size() > 2) return std::nullopt;
  if (dash + 1 >= t.size() || t[dash + 1] < '0' || t[dash + 1] > '9') return std::nullopt;
  OfedVersion v;
  std::from_chars(maj.data(), maj.data() + maj.size(), v.major);
  std::from_chars(min.data(), min.data() + min.size(), v.minor);
  v.text = std::string(t);
  return v;
}

StatusOr<KernelVersion> ParseKernelRelease(std::string_view text) {
  std::string_view t = Trim(text);
  auto parts = SplitChar(t, '.');
  if (parts.size() < 2) return InvalidArgumentError("not a kernel release: " + Quote(text));
  std::string_view minor = parts[1];
  size_t end = 0;
  while (end < minor.size() && minor[end] >= '0' && minor[end] <= '9') ++end;
  minor = minor.substr(0, end);
  if (!IsDigits(parts[0]) || !IsDigits(minor) || parts[0].size() > 3 || minor.size() > 3) {
    return InvalidArgumentError("not a kernel release: " + Quote(text));
  }
  KernelVersion v;
  std::from_chars(parts[0].data(), parts[0].data() + parts[0].size(), v.major);
  std::from_chars(minor.data(), minor.data() + minor.size(), v.minor);
  return v;
}

StatusOr<NvidiaDriverInfo> ParseNvidiaVersionFile(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  if (line.find("NVRM version:") == std::string_view::npos) {
    return InvalidArgumentError("first line lacks 'NVRM version:': " + Quote(line));
  }
  NvidiaDriverInfo info;
  info.open = line.find("Open Kernel Module") != std::string_view::npos;
  size_t module = line.find("Module");
  if (module == std::string_view::npos)
    return InvalidArgumentError("no 'Module' in: " + Quote(line));
  for (auto tok : SplitWhitespace(line.substr(module + 6))) {
    auto parts = SplitChar(tok, '.');
    if (parts.size() < 2 || parts.size() > 3) continue;
    bool all = true;
    for (auto p : parts) all = all && IsDigits(p);
    if (all) {
      info.version = std::string(tok);
      return info;
    }
  }
  return InvalidArgumentError("no driver version in: " + Quote(line));
}

std::string FormatBytes(int64_t bytes) {
  static constexpr std::pair<int64_t, const char*> kUnits[] = {
      {1LL << 40, "Ti"}, {1LL << 30, "Gi"}, {1LL << 20, "Mi"}, {1LL << 10, "Ki"}};
  constexpr size_t kCount = sizeof kUnits / sizeof kUnits[0];
  for (size_t i = 0; i < kCount; ++i) {
    const auto [mult, name] = kUnits[i];
    if (bytes < mult) continue;
    if (bytes % mult == 0) return std::to_string(bytes / mult) + name;
    // Not whole: the next smaller unit if that is exact, else three decimals of this one.
    if (i + 1 < kCount && bytes % kUnits[i + 1].first == 0) {
      return std::to_string(bytes / kUnits[i + 1].first) + kUnits[i + 1].second;
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3f%s", static_cast<double>(bytes) / static_cast<double>(mult),
                  name);
    return buf;
  }
  return std::to_string(bytes);
}

bool NaturalLess(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      const size_t i0 = i, j0 = j;
      while (i < a.size() && digit(a[i])) ++i;
      while (j < b.size() && digit(b[j])) ++j;
      std::string_view x = a.substr(i0, i - i0), y = b.substr(j0, j - j0);
      while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
      while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j || (a.size() - i == b.size() - j && a < b);
}

std::vector<std::string_view> SplitNonEmpty(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(sep, i);
    if (j == std::string_view::npos) j = text.size();
    if (j > i) out.push_back(text.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

}  // namespace rdmastack::node
