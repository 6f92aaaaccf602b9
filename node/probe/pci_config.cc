#include "node/probe/pci_config.h"

#include <algorithm>
#include <set>
#include <string>

namespace rdmastack::node {
namespace {

constexpr size_t kExtendedStart = 0x100;
constexpr size_t kConfigEnd = 0x1000;
constexpr uint16_t kAcsId = 0x000d;

uint32_t Le32(std::string_view b, size_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(b[at])) |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 2])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 3])) << 24;
}

uint16_t Le16(std::string_view b, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[at]) | static_cast<uint8_t>(b[at + 1]) << 8);
}

}  // namespace

std::string AcsControl::Describe() const {
  static constexpr const char* kNames[] = {"SrcValid",    "TransBlk",   "ReqRedir",   "CmpltRedir",
                                           "UpstreamFwd", "EgressCtrl", "DirectTrans"};
  std::string out;
  for (int bit = 0; bit < 7; ++bit) {
    if (!out.empty()) out += ' ';
    out += kNames[bit];
    out += (control >> bit) & 1 ? '+' : '-';
  }
  return out;
}

StatusOr<std::optional<AcsControl>> FindAcs(std::string_view config) {
  if (config.size() < kExtendedStart + 4) {
    return UnavailableError("only " + std::to_string(config.size()) +
                            " bytes of configuration space (the extended space needs root)");
  }
  const std::string_view space = config.substr(0, std::min(config.size(), kConfigEnd));
  std::set<size_t> seen;
  size_t at = kExtendedStart;
  while (at != 0) {
    if (at < kExtendedStart || at + 4 > space.size() || at % 4 != 0) {
      return InvalidArgumentError("extended capability at offset " + std::to_string(at) +
                                  " is outside the configuration space");
    }
    if (!seen.insert(at).second) {
      return InvalidArgumentError("extended capability list loops at offset " + std::to_string(at));
    }
    const uint32_t header = Le32(space, at);
    if (header == 0 || header == 0xffffffffu) return std::optional<AcsControl>();  // no list
    if ((header & 0xffff) == kAcsId) {
      if (at + 8 > space.size()) {
        return InvalidArgumentError("ACS capability at offset " + std::to_string(at) +
                                    " runs past the configuration space");
      }
      return std::optional<AcsControl>(AcsControl{Le16(space, at + 4), Le16(space, at + 6)});
    }
    at = header >> 20;
  }
  return std::optional<AcsControl>();
}

}  // namespace rdmastack::node
