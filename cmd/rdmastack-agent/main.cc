// rdmastack-agent: `check` prints the node report; `run` streams it to the operator's AgentHub.
#include <cstdio>
#include <string>
#include <vector>

#include "agents/node-agent/cli/check_command.h"
#include "agents/node-agent/cli/run_command.h"
#include "base/version.h"
#include "node/probe/nvml_query.h"

namespace {

constexpr const char* kUsage =
    "usage: rdmastack-agent check ...   print the node report (see `check --help`)\n"
    "       rdmastack-agent run ...     stream reports to the operator (see `run --help`)\n"
    "       rdmastack-agent version\n"
    "       rdmastack-agent help        this text\n";

int Check(const std::vector<std::string>& args) {
  using rdmastack::agent::kCheckUsage;
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kCheckUsage, stdout);
    return 0;
  }
  auto options = rdmastack::agent::ParseCheckOptions(args);
  if (!options.ok()) {
    std::fprintf(stderr, "error: %s\n%s", options.status().message().c_str(), kCheckUsage);
    return 2;
  }
  auto run = rdmastack::agent::RunCheck(*options);
  if (!run.ok()) {
    std::fprintf(stderr, "error: %s\n", run.status().message().c_str());
    return 2;
  }
  std::fputs(run->rendered.c_str(), stdout);
  return run->evaluation.ready ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string cmd = args.front();
  args.erase(args.begin());
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (cmd == "check") return Check(args);
  if (cmd == "run") return rdmastack::agent::RunDaemonCommand(args);
  // Internal: the daemon runs this in a child so that NVML never maps into the daemon itself.
  if (cmd == "nvml-bar1") return rdmastack::node::RunNvmlBar1Command(args);
  if (cmd == "version" || cmd == "--version") {
    std::printf("rdmastack-agent %s\n", rdmastack::kVersion);
    return 0;
  }
  std::fprintf(stderr, "unknown command '%s'\n%s", cmd.c_str(), kUsage);
  return 2;
}
