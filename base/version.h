#pragma once

namespace rdmastack {
// Reported in user agents, Hello messages and --version output.
inline constexpr const char* kVersion = "0.1.0";
}  // namespace rdmastack
