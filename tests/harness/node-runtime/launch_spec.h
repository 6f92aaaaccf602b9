#pragma once
// What the node runtime hands the shim for one container start: the node's network namespace,
// the files and directories to bind into the container's root, the command and its environment,
// and where the output goes; or, for a container from an OCI image, the runc bundle. Written by the
// runtime as JSON, read by rdmastack-node-shim.

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack::sim {

struct BindMount {
  std::string source;  // a host path (file or directory)
  std::string target;  // an absolute path inside the container
  bool read_only = false;
  friend bool operator==(const BindMount&, const BindMount&) = default;
};

struct LaunchSpec {
  std::string netns_path;  // /run/netns/<name>; empty = the caller's network namespace
  std::string hostname;    // the container's UTS host name
  bool host_pid = false;   // share the host's PID namespace (pod.spec.hostPID)
  // An empty host directory the shim mounts a tmpfs on for the container's writable layer.
  std::string scratch_dir;
  std::vector<BindMount> mounts;  // image files and volumes, applied in order
  std::vector<std::string> argv;
  std::vector<std::string> env;  // "NAME=value"
  std::string working_dir = "/";
  std::string log_file;    // stdout and stderr, appended
  std::string pid_file;    // the container process's host PID, written once it exists
  std::string error_file;  // why the start failed, when it did (the shim then exits 128)
  // A container from an OCI image (oci_shim.h): runc runs the bundle whose config.json the runtime
  // rendered; the image's unpacked root is the lower layer of the container's root. Empty: the
  // host-userland container above.
  std::string oci_bundle;
  std::string oci_lower_root;
  std::string runc;       // the runc binary
  std::string runc_root;  // runc's state directory (--root)
  std::string container_id;
  friend bool operator==(const LaunchSpec&, const LaunchSpec&) = default;
};

std::string LaunchSpecToJson(const LaunchSpec& spec);
StatusOr<LaunchSpec> LaunchSpecFromJson(std::string_view json);

// Exit status of the shim when the container could not be started (what containerd reports as
// StartError); the reason is in error_file.
inline constexpr int kStartErrorExitCode = 128;

}  // namespace rdmastack::sim
