// rdmastack-gateway: entrypoint of the gateway container.
//   run    verify pins and node, render cufile.json, exec the gateway
//   probe  health path + SigV4 ListBuckets readiness check
#include <iostream>
#include <string>
#include <vector>

#include "base/version.h"
#include "cmd/rdmastack-gateway/probe_command.h"
#include "gateway/launcher/launcher.h"

extern char** environ;

int main(int argc, char** argv) {
  using namespace rdmastack::gateway;
  const std::string usage =
      "usage: rdmastack-gateway run [flags]     start the gateway (see run --help)\n"
      "       rdmastack-gateway probe [flags]   check a running gateway (see probe --help)\n"
      "       rdmastack-gateway version\n";
  if (argc < 2) {
    std::cerr << usage;
    return static_cast<int>(RefusalClass::kUsage);
  }
  const std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  Environment env = EnvironmentFromEnviron(environ);
  if (command == "run") return RunLauncher(args, env);
  if (command == "probe") return RunProbeCommand(args, env);
  if (command == "version" || command == "--version") {
    std::cout << "rdmastack-gateway " << rdmastack::kVersion << std::endl;
    return 0;
  }
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << usage;
    return 0;
  }
  std::cerr << "rdmastack-gateway: unknown command '" << command << "'\n" << usage;
  return static_cast<int>(RefusalClass::kUsage);
}
