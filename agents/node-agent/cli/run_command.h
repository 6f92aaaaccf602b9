#pragma once
// `rdmastack-agent run`: flags -> AgentDaemon, stops on SIGTERM/SIGINT, re-probes on SIGHUP.

#include <chrono>
#include <string>
#include <vector>

#include "agents/node-agent/daemon/agent_daemon.h"
#include "agents/node-agent/daemon/probing_source.h"

namespace rdmastack::agent {

struct RunOptions {
  DaemonOptions daemon;
  ProbingSourceOptions source;
  std::string probes_file;
  bool live_probes = false;
  std::string log_level = "info";
  // BAR1 free changes only as GPU memory gets registered; NVML's init costs ~50 ms of CPU.
  std::chrono::milliseconds gpu_memory_interval{5 * 60'000};
};

StatusOr<RunOptions> ParseRunOptions(const std::vector<std::string>& args);
int RunDaemonCommand(const std::vector<std::string>& args);

inline constexpr const char* kRunUsage =
    "usage: rdmastack-agent run --hub HOST:PORT --ca-file CA.pem --token-file TOKEN [--node-name "
    "NAME]\n"
    "         [--tls-server-name NAME] [--root DIR] [--role gateway|client] [--probe-interval "
    "60s]\n"
    "         [--ips-file F] [--probes-file F] [--live-probes] [--log-level info]\n"
    "         [--gpu-memory-interval 5m]  how often NVML is asked for BAR1 total/free\n"
    "  NODE_NAME from the environment (downward API) is the default node name.\n";

}  // namespace rdmastack::agent
