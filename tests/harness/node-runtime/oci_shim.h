#pragma once
// The shim's half of a container from an OCI image: the container's root is mounted in a mount
// namespace of the shim's own (an overlay of the image's cached root and a scratch upper layer;
// runc makes it read-only when the pod asks), and `runc run` starts the bundle in the foreground.
// Unless the pod shares the host's PID namespace, runc runs as the first process of a PID namespace
// the shim made, so that the shim's death (even by SIGKILL) ends runc and, with it, every process
// of the container (runc's state it leaves then is removed by the runtime). The container's host
// PID goes to spec.pid_file once runc has created it; a container that never started leaves runc's
// error in spec.error_file.
//
// Called with stdout/stderr already on the container's log and the forwarded signals blocked.

#include "tests/harness/node-runtime/launch_spec.h"

namespace rdmastack::sim {

// The container's exit code (128 + N for signal N), or kStartErrorExitCode.
int RunOciContainer(const LaunchSpec& spec, const sigset_t& forwarded);

}  // namespace rdmastack::sim
