// kubectl-rdmastack: `kubectl rdmastack status|why|upgrade|must-gather|bench`: read-only views
// of rdmastack, its support bundle, and a throughput bench of a profile (docs/plugin.md). A thin
// shell: parse the command line, find the cluster, run the command.
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "base/logging.h"
#include "base/version.h"
#include "cli/kubectl-rdmastack/bench_command.h"
#include "cli/kubectl-rdmastack/commands.h"
#include "cli/kubectl-rdmastack/kubeconfig.h"
#include "cli/kubectl-rdmastack/must_gather/must_gather_command.h"
#include "cli/kubectl-rdmastack/options.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/client.h"
#include "operator/k8s/transport.h"

namespace {

using rdmastack::plugin::Command;

// A GET of any API path (/version, pods/log): the body, or the API's error.
rdmastack::StatusOr<std::string> GetPath(rdmastack::k8s::Transport& transport,
                                         const std::string& path) {
  rdmastack::k8s::HttpRequest request;
  request.target = path;
  request.accept = "*/*";  // pods/log is text/plain
  auto response = transport.Send(request);
  if (!response.ok()) return response.status();
  if (response->status >= 200 && response->status < 300) return std::move(response->body);
  return rdmastack::k8s::ApiErrorFromResponse(response->status, response->body,
                                              response->retry_after)
      .ToStatus();
}

int Run(const std::vector<std::string>& args) {
  auto options = rdmastack::plugin::ParseOptions(args);
  if (!options.ok()) {
    std::fprintf(stderr, "error: %s\n\n%s", options.status().message().c_str(),
                 rdmastack::plugin::kUsage);
    return 2;
  }
  if (options->command == Command::kHelp) {
    std::fputs(rdmastack::plugin::kUsage, stdout);
    return 0;
  }
  if (options->command == Command::kVersion) {
    std::printf("kubectl-rdmastack %s\n", rdmastack::kVersion);
    return 0;
  }
  // The client logs only what a person must see (e.g. disabled TLS verification), on stderr.
  (void)rdmastack::InitLogging("warn");

  auto config = rdmastack::plugin::LoadClusterConfig(*options);
  if (!config.ok()) {
    std::fprintf(stderr, "error: %s\n", config.status().message().c_str());
    return 1;
  }
  config->user_agent = std::string("kubectl-rdmastack/") + rdmastack::kVersion;
  // A person is waiting: fail within seconds rather than retry for minutes.
  config->connect_timeout = std::chrono::seconds(5);
  config->request_timeout = std::chrono::seconds(30);
  config->max_throttle_retries = 2;
  const rdmastack::plugin::ClusterInfo cluster{config->server, config->source};
  const std::string default_namespace = config->default_namespace;
  // must-gather and bench also read what the typed client has no call for: /version, pods/log.
  std::unique_ptr<rdmastack::k8s::Transport> transport;
  if (options->command == Command::kMustGather || options->command == Command::kBench) {
    auto made = rdmastack::k8s::NewHttpsTransport(*config);
    if (!made.ok()) {
      std::fprintf(stderr, "error: %s (%s)\n", made.status().message().c_str(),
                   cluster.source.c_str());
      return 1;
    }
    transport = std::move(*made);
  }
  auto client = rdmastack::k8s::NewRestClient(std::move(*config));
  if (!client.ok()) {
    std::fprintf(stderr, "error: %s (%s)\n", client.status().message().c_str(),
                 cluster.source.c_str());
    return 1;
  }

  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  rdmastack::plugin::CommandResult result;
  switch (options->command) {
    case Command::kStatus:
      result = rdmastack::plugin::RunStatus(**client, *options, cluster, now);
      break;
    case Command::kWhy: result = rdmastack::plugin::RunWhy(**client, *options, cluster, now); break;
    case Command::kUpgrade:
      result = rdmastack::plugin::RunUpgrade(**client, *options, default_namespace, cluster, now);
      break;
    case Command::kBench: {
      rdmastack::plugin::BenchIo io;
      io.api.client = client->get();
      io.api.get = [&transport](const std::string& path) { return GetPath(*transport, path); };
      io.progress = [quiet = options->quiet](const std::string& line) {
        if (!quiet) std::fprintf(stderr, "bench: %s\n", line.c_str());
      };
      io.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
      result = rdmastack::plugin::RunBench(io, *options, default_namespace, cluster);
      break;
    }
    case Command::kMustGather: {
      rdmastack::plugin::ApiAccess api;
      api.client = client->get();
      api.get = [&transport](const std::string& path) { return GetPath(*transport, path); };
      const bool quiet = options->quiet;
      result = rdmastack::plugin::RunMustGather(
          api, *options, cluster, now, [quiet](const std::string& line) {
            if (!quiet) std::fprintf(stderr, "must-gather: %s\n", line.c_str());
          });
      break;
    }
    default: break;
  }
  std::fputs(result.out.c_str(), stdout);
  std::fputs(result.err.c_str(), stderr);
  return result.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    // Libraries below (yaml-cpp, Boost) throw; nothing of ours does.
    std::fprintf(stderr, "error: internal: %s\n", e.what());
    return 1;
  }
}
