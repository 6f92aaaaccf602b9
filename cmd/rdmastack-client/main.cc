// rdmastack-client: the client data plane of a ClientProfile, run by its DaemonSet on GPU nodes.
//   run     prepare the node (config files, libcuobjclient, nvidia_peermem) and keep state.json
//   ready   the pod's readiness probe over state.json
//   uninstall  the operator's uninstall pod on a node that has left the profile
//   remove-dir the operator's cleanup pod on a storage node after its GatewayPool is deleted
//   bench   PUT/GET throughput of the profile's pool, in kubectl rdmastack bench's Job
#include <cstdio>
#include <string>
#include <vector>

#include "agents/client/bench.h"
#include "agents/client/commands.h"
#include "agents/client/options.h"
#include "base/version.h"
#include "node/probe/nvml_query.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(rdmastack::client::kUsage, stderr);
    return 2;
  }
  const std::string cmd = args.front();
  args.erase(args.begin());
  if (cmd == "run") return rdmastack::client::RunCommand(args);
  if (cmd == "ready") return rdmastack::client::ReadyCommand(args);
  if (cmd == "uninstall") return rdmastack::client::UninstallCommand(args);
  if (cmd == "remove-dir") return rdmastack::client::RemoveDirCommand(args);
  if (cmd == "bench") return rdmastack::client::BenchCommand(args);
  if (cmd == "--version" || cmd == "version") {
    std::printf("rdmastack-client %s\n", rdmastack::kVersion);
    return 0;
  }
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(rdmastack::client::kUsage, stdout);
    return 0;
  }
  if (cmd == "nvml-bar1") {
    // Internal: the live prober asks NVML through this in a child, so that NVML never maps into
    // the long-running process (as rdmastack-agent does).
    return rdmastack::node::RunNvmlBar1Command(args);
  }
  std::fprintf(stderr, "unknown command '%s'\n%s", cmd.c_str(), rdmastack::client::kUsage);
  return 2;
}
