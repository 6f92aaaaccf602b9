#pragma once
// Reads /proc/self/mountinfo: which file systems sit directly below "/". A container root built as
// an overlay of the host's "/" sees only the root file system, so the shim binds these back in.

#include <string>
#include <string_view>
#include <vector>

namespace rdmastack::sim {

// Mount points whose parent is the mount at "/" (the last one, when several are stacked there), in
// the order mountinfo lists them. Octal escapes (\040 for a space) are decoded.
std::vector<std::string> TopLevelMounts(std::string_view mountinfo);

}  // namespace rdmastack::sim
