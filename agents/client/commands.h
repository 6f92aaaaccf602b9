#pragma once
// The commands of rdmastack-client, separate from main() so tests can call them in-process.

#include <string>
#include <vector>

namespace rdmastack::client {

// `run`: passes every --interval until SIGTERM/SIGINT, then returns 0 and leaves what it installed
// (uninstall_pass.h says why). 2 on a usage or configuration error.
int RunCommand(const std::vector<std::string>& args);
// `ready`: 0 iff state.json says ready and is fresh; 1 otherwise (one line on stdout says why);
// 2 on a usage error.
int ReadyCommand(const std::vector<std::string>& args);
// `uninstall`: UninstallPass every --interval until SIGTERM/SIGINT, then 0; 2 on a usage error.
int UninstallCommand(const std::vector<std::string>& args);
// `remove-dir`: RemoveDirPass every --interval until SIGTERM/SIGINT, then 0; 2 on a usage error.
int RemoveDirCommand(const std::vector<std::string>& args);

}  // namespace rdmastack::client
