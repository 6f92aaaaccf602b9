#pragma once
// The OCI runtime configuration (config.json of a runc bundle) for one container of a simulated
// node: the image's root below the bundle, the pod's namespaces (the node's network namespace,
// a PID namespace of its own unless hostPID), the securityContext as resolved by
// security_context.h, and the pod's volumes as bind mounts. A pure function, so what a pod asks
// for and what runc is told can be compared in a unit test.

#include <string>
#include <vector>

#include "tests/harness/node-runtime/launch_spec.h"
#include "tests/harness/node-runtime/security_context.h"

namespace rdmastack::sim {

struct OciContainerConfig {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // "NAME=value"
  std::string working_dir = "/";
  std::string hostname;
  std::string netns_path;  // empty: the runtime's own network namespace
  bool host_pid = false;
  ContainerSecurity security;
  std::vector<BindMount> mounts;  // volumes and the pod's /etc files, in order
  std::string cgroups_path;       // "/rdmastack-sim/<container id>"
};

// The config.json text; root.path is "rootfs" (relative to the bundle).
std::string RenderOciConfig(const OciContainerConfig& c);

}  // namespace rdmastack::sim
