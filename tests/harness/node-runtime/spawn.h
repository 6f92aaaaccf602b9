#pragma once
// Starts a helper process (the shim) from the multi-threaded runtime: posix_spawn, with no signal
// blocked in the child whatever the calling thread blocks (the runtime blocks SIGTERM/SIGINT for
// its signal thread).

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/status.h"

namespace rdmastack::sim {

// `quiet`: stdin, stdout and stderr go to /dev/null; otherwise they are the runtime's.
StatusOr<pid_t> SpawnProcess(const std::vector<std::string>& argv, bool quiet);

// Runs argv to its end with stdin from /dev/null and stdout+stderr into `output_file`; OK when it
// exits 0, else an error with the exit status and the output's last line.
Status RunToCompletion(const std::vector<std::string>& argv, const std::string& output_file);

}  // namespace rdmastack::sim
