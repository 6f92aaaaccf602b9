#pragma once
// Starts a helper process (the shim) from the multi-threaded runtime: posix_spawn, with no signal
// blocked in the child whatever the calling thread blocks (the runtime blocks SIGTERM/SIGINT for
// its signal thread).

#include <sys/types.h>

#include <string>
#include <vector>

#include "operator/base/status.h"

namespace rdmastack::sim {

// `quiet`: stdin, stdout and stderr go to /dev/null; otherwise they are the runtime's.
StatusOr<pid_t> SpawnProcess(const std::vector<std::string>& argv, bool quiet);

}  // namespace rdmastack::sim
