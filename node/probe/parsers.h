#pragma once
// Pure parsers for the text formats the agent reads from sysfs and procfs. No I/O: each takes the
// file's text and returns a value or an error message, which keeps them fuzzable
// (tests/.../parsers_fuzz.cc) and lets probes attach the path.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack::node {

// "0x15b3" / "15b3" / "42" style numbers.
StatusOr<uint64_t> ParseHex(std::string_view text);
StatusOr<int64_t> ParseDecimal(std::string_view text);
// A port counter's file ("1234\n"): an unsigned decimal of up to 64 bits, as the kernel prints it.
StatusOr<uint64_t> ParseCounter(std::string_view text);
std::string_view Trim(std::string_view text);
// The words of `text`, split at spaces and tabs.
std::vector<std::string_view> SplitWhitespace(std::string_view text);

// Calls `on_line(line_no, line)` for every trimmed line of a line-oriented file of ours (ips file,
// recorded probes), skipping blank lines and '#' comments; stops at the first error, prefixed
// with "line N: ".
Status ForEachContentLine(std::string_view text,
                          const std::function<Status(std::string_view line)>& on_line);

// ---- PCI resource file: "0x%016llx 0x%016llx 0x%016llx" per line. ----
struct PciResource {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t flags = 0;
  bool IsMemory() const { return (flags & 0x200) != 0; }
  bool IsPrefetchable() const { return (flags & 0x2000) != 0; }
  bool Is64Bit() const { return (flags & 0x100000) != 0; }
  bool Empty() const { return start == 0 && end == 0; }
  uint64_t Size() const { return end >= start && !Empty() ? end - start + 1 : 0; }
};
StatusOr<std::vector<PciResource>> ParsePciResource(std::string_view text);

// The NVIDIA framebuffer aperture ("BAR1"): the memory BAR that follows BAR0 in register order.
// BAR0 may be 32-bit (aperture at line 1) or 64-bit (aperture at line 2); the upper half of a
// 64-bit BAR is an all-zero line.
struct Bar1Location {
  int index = -1;
  uint64_t size = 0;
  bool expected_flags = true;  // 64-bit prefetchable memory, as NVIDIA GPUs expose it
  std::string note;            // why a fallback was used
};
StatusOr<Bar1Location> FindGpuBar1(const std::vector<PciResource>& lines);

// ---- GIDs ----
using GidBytes = std::array<uint8_t, 16>;
// sysfs form: 8 groups of 4 hex digits separated by ':' (exactly 39 characters).
StatusOr<GidBytes> ParseGid(std::string_view text);
std::string FormatGid(const GidBytes& gid);
bool GidIsZero(const GidBytes& gid);
bool GidIsLinkLocal(const GidBytes& gid);
// "0000:0000:0000:0000:0000:ffff:c0a8:3215" for 192.168.50.21.
StatusOr<std::string> Ipv4MappedGid(std::string_view ipv4);
// IPoIB hardware address: 20 colon-separated bytes; bytes 4..19 are the port GID.
StatusOr<GidBytes> GidFromIpoibAddress(std::string_view hwaddr);

// ---- "4: ACTIVE" / "5: LinkUp" ----
struct NumberedState {
  int code = -1;
  std::string name;
};
StatusOr<NumberedState> ParseNumberedState(std::string_view text);

// ---- Modules ----
struct ProcModule {
  std::string name;
  std::string state;  // Live | Loading | Unloading
  std::vector<std::string> used_by;
};
// /proc/modules: "name size refcount deps state address [taint]" per line. Malformed lines are
// an error naming the line number.
StatusOr<std::vector<ProcModule>> ParseProcModules(std::string_view text);

// MOFED/DOCA-OFED driver version as /sys/module/mlx5_core/version prints it: "23.10-1.1.9",
// "5.8-1.0.1", "25.01-0.6.0". Distro kernels print kernel-style versions or nothing.
struct OfedVersion {
  int major = 0;
  int minor = 0;
  std::string text;
};
std::optional<OfedVersion> ParseOfedVersion(std::string_view text);

// "5.15.0-105-generic" -> {5, 15}.
struct KernelVersion {
  int major = 0;
  int minor = 0;
};
StatusOr<KernelVersion> ParseKernelRelease(std::string_view text);

// First line of /proc/driver/nvidia/version.
struct NvidiaDriverInfo {
  bool open = false;
  std::string version;  // 570.124.06
};
StatusOr<NvidiaDriverInfo> ParseNvidiaVersionFile(std::string_view text);

// "a.b.c.d" -> host-order address; rejects anything else (no leading zeros beyond one digit
// groups longer than 3, no missing octets).
StatusOr<uint32_t> ParseIpv4(std::string_view text);

std::string FormatBytes(int64_t bytes);  // "192Mi", "256Mi", "128Gi", "1000" (exact binary units)

// The non-empty pieces of `text` between `sep`s ("a//b/" -> {"a", "b"}), as views into `text`.
// Names as a person orders them: runs of digits compare as numbers ("mlx5_2" < "mlx5_10").
bool NaturalLess(std::string_view a, std::string_view b);

std::vector<std::string_view> SplitNonEmpty(std::string_view text, char sep);

}  // namespace rdmastack::node
