#include "agents/node-agent/cli/run_command.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#include "agents/node-agent/cli/check_command.h"
#include "agents/node-agent/transport/tls_socket.h"
#include "base/duration.h"
#include "base/flag_reader.h"
#include "base/logging.h"
#include "node/probe/parsers.h"

namespace rdmastack::agent {
namespace {

// Positive and at most a day: the probe and NVML intervals.
StatusOr<std::chrono::milliseconds> ParseInterval(const std::string& text) {
  RDMASTACK_ASSIGN_OR_RETURN(std::chrono::milliseconds d, ParseDuration(text));
  if (d <= std::chrono::milliseconds(0) || d > std::chrono::hours(24)) {
    return InvalidArgumentError("interval '" + text + "' must be above 0 and at most 24h");
  }
  return d;
}

}  // namespace

StatusOr<RunOptions> ParseRunOptions(const std::vector<std::string>& args) {
  RunOptions o;
  if (const char* env = std::getenv("NODE_NAME")) o.daemon.node_name = env;
  for (size_t i = 0; i < args.size();) {
    RDMASTACK_ASSIGN_OR_RETURN(FlagValue next, ReadFlag(args, &i, {"--live-probes"}));
    const std::string& flag = next.flag;
    const std::string& value = next.value;
    if (flag == "--live-probes") {
      o.live_probes = value == "true";
      continue;
    }
    if (flag == "--hub") {
      o.daemon.hub_address = value;
    } else if (flag == "--ca-file") {
      o.daemon.ca_file = value;
    } else if (flag == "--token-file") {
      o.daemon.token_file = value;
    } else if (flag == "--node-name") {
      o.daemon.node_name = value;
    } else if (flag == "--tls-server-name") {
      o.daemon.tls_server_name = value;
    } else if (flag == "--root") {
      o.source.root = value;
    } else if (flag == "--role") {
      RDMASTACK_ASSIGN_OR_RETURN(o.source.default_role, node::ParseRole(value));
    } else if (flag == "--probe-interval") {
      RDMASTACK_ASSIGN_OR_RETURN(o.daemon.probe_interval, ParseInterval(value));
    } else if (flag == "--gpu-memory-interval") {
      RDMASTACK_ASSIGN_OR_RETURN(o.gpu_memory_interval, ParseInterval(value));
    } else if (flag == "--ips-file") {
      o.source.ips_file = value;
    } else if (flag == "--probes-file") {
      o.probes_file = value;
    } else if (flag == "--log-level") {
      o.log_level = value;
    } else {
      return InvalidArgumentError("unknown flag " + flag);
    }
  }
  if (o.daemon.hub_address.empty()) return InvalidArgumentError("--hub is required");
  if (o.daemon.ca_file.empty()) return InvalidArgumentError("--ca-file is required");
  if (o.daemon.token_file.empty()) return InvalidArgumentError("--token-file is required");
  if (o.daemon.node_name.empty()) {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0) o.daemon.node_name = host;
  }
  if (o.daemon.node_name.empty())
    return InvalidArgumentError("--node-name is required (or set NODE_NAME)");
  o.source.node_name = o.daemon.node_name;
  return o;
}

int RunDaemonCommand(const std::vector<std::string>& args) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kRunUsage, stdout);
    return 0;
  }
  auto options = ParseRunOptions(args);
  if (!options.ok()) {
    std::fprintf(stderr, "error: %s\n%s", options.status().message().c_str(), kRunUsage);
    return 2;
  }
  if (Status st = InitLogging(options->log_level); !st.ok()) {
    std::fprintf(stderr, "error: %s\n", st.message().c_str());
    return 2;
  }
  if (Status st = transport::InitTls(); !st.ok()) {
    std::fprintf(stderr, "error: %s\n", st.message().c_str());
    return 1;
  }
  // Fail fast on a bad --probes-file; later probes make their own prober.
  if (auto prober =
          node::MakeProber(options->source.root, options->probes_file, options->live_probes);
      !prober.ok()) {
    std::fprintf(stderr, "error: %s\n", prober.status().message().c_str());
    return 2;
  }
  spdlog::info(
      "device probes: {}",
      node::DescribeProbeSource(options->source.root, options->probes_file, options->live_probes));
  // NVML through this same binary in a child, asked again at most every --gpu-memory-interval.
  node::LiveProberOptions live;
  live.nvml_helper = "/proc/self/exe";
  live.nvml_cache = std::make_shared<node::NvmlSampleCache>();
  live.nvml_max_age =
      std::chrono::duration_cast<std::chrono::seconds>(options->gpu_memory_interval);
  ProbingReportSource source(options->source, [&] {
    return node::MakeProber(options->source.root, options->probes_file, options->live_probes, live);
  });
  AgentDaemon daemon(options->daemon, &source, &RealClock::Instance());

  // Signals are taken by one thread with sigwait, so handlers never run inside library code.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread signals([&] {
    while (true) {
      int sig = 0;
      if (sigwait(&set, &sig) != 0) continue;
      if (sig == SIGHUP) {
        daemon.RequestReprobe();
        continue;
      }
      daemon.Stop();
      return;
    }
  });
  Status st = daemon.Run();
  if (!st.ok()) {
    std::fprintf(stderr, "error: %s\n", st.message().c_str());
    pthread_kill(signals.native_handle(), SIGTERM);
  }
  signals.join();
  return st.ok() ? 0 : 2;
}

}  // namespace rdmastack::agent
