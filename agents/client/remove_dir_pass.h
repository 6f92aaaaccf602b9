#pragma once
// `rdmastack-client remove-dir`: what the operator's cleanup pod runs on a storage node after a
// GatewayPool is deleted and its gateways have stopped: it removes the pool's own directory (its
// IAM users, `/var/lib/rdmastack/gateway-iam/<ns>.<pool>.<uid>`) through HostDir, so the name is
// one plain component under the mounted root and no link is followed.

#include <chrono>
#include <string>

#include "agents/client/state.h"

namespace rdmastack::client {

inline constexpr const char* kReasonRemoved = "Removed";
inline constexpr const char* kReasonRemoveFailed = "RemoveFailed";

// Removes `name` under `root` (again each pass: idempotent) and returns the state for state.json:
// ready (reason Removed) once it is gone, so the pod's readiness tells the operator the node is
// clean. A missing root counts as gone.
ClientState RemoveDirPass(const std::string& root, const std::string& name,
                          std::chrono::system_clock::time_point now);

}  // namespace rdmastack::client
