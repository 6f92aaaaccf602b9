#include "base/pci_address.h"

namespace rdmastack {

namespace {
bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsLowerHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}
}  // namespace

bool IsPciAddress(std::string_view t) {
  // dddd:bb:dd.f
  if (t.size() != 12 || t[4] != ':' || t[7] != ':' || t[10] != '.') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11}) {
    if (!IsHex(t[i])) return false;
  }
  return true;
}

bool IsPcieRoot(std::string_view t) {
  if (!t.starts_with("pci")) return false;
  const size_t colon = t.find(':');
  if (colon == std::string_view::npos || colon < 7 || colon > 11 || t.size() != colon + 3) {
    return false;
  }
  for (size_t i = 3; i < t.size(); ++i) {
    if (i != colon && !IsLowerHex(t[i])) return false;
  }
  return true;
}

}  // namespace rdmastack
