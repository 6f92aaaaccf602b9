#pragma once
// Builds the file system a container on a simulated node sees, inside the container's own mount
// namespace, and pivots into it:
//
//   /                  an overlay: the host's "/" read-only below, a private tmpfs above, so the
//                      container may create and change files (mount points, /tmp) without touching
//                      the host, and loses them when it exits, as a container's writable layer
//   /proc, /sys        fresh proc (its own PID namespace) and sysfs (the node's network devices)
//   /dev, other mounts the host's, bound in (the overlay sees only the root file system)
//   spec.mounts        image files and the pod's volumes, bound at their paths
//
// Called in the container's first process after unshare(CLONE_NEWNS), before exec. Paths are
// resolved after the pivot, so a symlink in a target path stays inside the container's root.

#include "base/status.h"
#include "tests/harness/node-runtime/launch_spec.h"

namespace rdmastack::sim {

Status EnterContainerRoot(const LaunchSpec& spec, bool own_pid_namespace);

}  // namespace rdmastack::sim
