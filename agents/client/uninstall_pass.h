#pragma once
// `rdmastack-client uninstall`: what the operator's uninstall pod runs on a node that has left a
// ClientProfile once no running pod there names the profile. A client pod's own stop never
// uninstalls: its replacement (an image update, an operator upgrade, a restart) must not pull the
// configuration from under the workloads that mounted it.

#include <chrono>
#include <string>

#include "agents/client/installer.h"
#include "agents/client/state.h"

namespace rdmastack::client {

inline constexpr const char* kReasonUninstalled = "Uninstalled";
inline constexpr const char* kReasonUninstallFailed = "UninstallFailed";

// Removes what a client installed in the installer's directory (again each pass: idempotent), logs
// each removal, and returns the state for state.json: ready (reason Uninstalled) when nothing
// could not be removed, so that the pod's readiness tells the operator the node is clean.
ClientState UninstallPass(Installer& installer, std::chrono::system_clock::time_point now);

}  // namespace rdmastack::client
