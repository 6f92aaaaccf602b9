#pragma once
// Runs a helper program and captures what it prints, with a deadline: a helper that hangs (a
// wedged driver call) is killed, never waited on forever.

#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"

namespace rdmastack::node {

struct CapturedOutput {
  std::string out;
  std::string err;
};

// argv[0] is a path. OK only when the program exits 0 before the timeout; otherwise the error
// names the program and says how it ended, with the first line it wrote to stderr.
StatusOr<CapturedOutput> RunAndCapture(const std::vector<std::string>& argv,
                                       std::chrono::milliseconds timeout);

}  // namespace rdmastack::node
