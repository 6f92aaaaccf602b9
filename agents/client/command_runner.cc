#include "agents/client/command_runner.h"

#include <unistd.h>

#include <cstdlib>

#include "node/probe/parsers.h"

namespace rdmastack::client {

StatusOr<node::CapturedOutput> RunWithPathLookup(const std::vector<std::string>& argv,
                                                 std::chrono::milliseconds timeout) {
  if (argv.empty()) return InvalidArgumentError("no command to run");
  std::vector<std::string> resolved = argv;
  if (argv[0].find('/') == std::string::npos) {
    const char* path = std::getenv("PATH");
    const std::string dirs = path != nullptr ? path
                                             : "/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                                               "/usr/bin:/sbin:/bin";
    std::string found;
    for (std::string_view dir : node::SplitNonEmpty(dirs, ':')) {
      const std::string candidate = std::string(dir) + "/" + argv[0];
      if (::access(candidate.c_str(), X_OK) == 0) {
        found = candidate;
        break;
      }
    }
    if (found.empty()) return NotFoundError(argv[0] + ": not found in PATH (" + dirs + ")");
    resolved[0] = found;
  }
  return node::RunAndCapture(resolved, timeout);
}

}  // namespace rdmastack::client
