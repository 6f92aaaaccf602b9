#pragma once
// Runs a configured command (the --modprobe-command) with a deadline and its output captured.
// A seam: the client plane takes a CommandRunner so tests can see what would run without
// loading kernel modules.

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "node/probe/subprocess.h"

namespace rdmastack::client {

using CommandRunner = std::function<StatusOr<node::CapturedOutput>(
    const std::vector<std::string>& argv, std::chrono::milliseconds timeout)>;

// argv[0] without a '/' is looked up in PATH, as a shell would ("chroot", "modprobe").
StatusOr<node::CapturedOutput> RunWithPathLookup(const std::vector<std::string>& argv,
                                                 std::chrono::milliseconds timeout);

}  // namespace rdmastack::client
