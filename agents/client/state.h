#pragma once
// <state-dir>/state.json: what the last pass of `run` found, rewritten every pass. The pod's
// readiness probe (`rdmastack-client ready`) reads it, so readiness needs no second round of
// probing and a hung `run` shows as a stale file.

#include <chrono>
#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack::client {

// Reasons, CamelCase as in Kubernetes conditions.
inline constexpr const char* kReasonReady = "Ready";
inline constexpr const char* kReasonNodeNotCapable = "NodeNotCapable";
inline constexpr const char* kReasonNoEndpoints = "NoEndpoints";
inline constexpr const char* kReasonEndpointsUnreachable = "EndpointsUnreachable";
inline constexpr const char* kReasonEndpointsFileInvalid = "EndpointsFileInvalid";
inline constexpr const char* kReasonInstallFailed = "InstallFailed";
// The library image links outside itself (Installer::SyncLibraries); nothing of it is installed.
inline constexpr const char* kReasonLibraryRefused = "LibraryRefused";
// The library image's files are not the bytes the compatibility data pins (library_digest.h).
inline constexpr const char* kReasonLibraryDigestMismatch = "LibraryDigestMismatch";

struct ClientState {
  bool ready = false;
  std::string reason;
  std::string message;
  std::string profile;
  std::string node;
  std::string transport;            // GPUDirect | HostMemory | ""
  std::string memory_registration;  // DMABuf | PeerMem | ""
  int gid_index = -1;
  std::string rdma_device;
  int endpoints = 0;  // in the endpoints file
  int reachable = 0;  // answered in this pass
  bool peermem_loaded_by_client = false;
  std::chrono::system_clock::time_point updated;
  friend bool operator==(const ClientState&, const ClientState&) = default;
};

std::string RenderStateJson(const ClientState& state);
// Writes <state_dir>/state.json atomically, creating the directory when missing.
Status WriteStateFile(const std::string& state_dir, const ClientState& state);
StatusOr<ClientState> ParseStateJson(std::string_view text);

struct ReadyVerdict {
  bool ready = false;
  std::string why;  // one line
};
// Ready iff the state says so and was written at most max_age before now.
ReadyVerdict JudgeReady(const ClientState& state, std::chrono::system_clock::time_point now,
                        std::chrono::milliseconds max_age);

}  // namespace rdmastack::client
