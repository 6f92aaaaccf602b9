#pragma once
// `rdmastack-gateway run`: checks everything a gateway needs on this node, renders its config,
// and replaces itself with the gateway (exec: same pid, so SIGTERM from the kubelet reaches the
// gateway directly and its exit status is the container's). With TLS it stays as the gateway's
// parent instead, to reload a rotated certificate (tls_reload.h).

#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "gateway/launcher/flags.h"
#include "gateway/launcher/launch_config.h"
#include "gateway/launcher/memlock.h"
#include "gateway/launcher/refusal.h"

namespace rdmastack::gateway {

struct ExecPlan {
  std::string binary;
  std::vector<std::string> argv;
  std::map<std::string, std::string> env_overrides;  // set on top of the inherited environment
  std::string cufile_json_path;                      // "" in http mode
};

// Where the posix backend's data and (with metadata Sidecar) its metadata live on this node.
struct BackendDirs {
  std::string root;
  std::string sidecar;  // "" unless metadata Sidecar
};

// Pure: the gateway's argv and environment for a checked configuration.
ExecPlan BuildExecPlan(const LaunchConfig& config, const BackendDirs& backend,
                       const std::string& rdma_ip, const Environment& env);

// Root keys must come through the environment (a Secret), never argv.
Status CheckRootCredentials(const Environment& env);

struct LauncherIo {
  std::function<StatusOr<MemlockFacts>()> read_memlock = ReadMemlockFactsRaisingSoftLimit;
};

using PrepareResult = std::variant<ExecPlan, Refusal>;

// Runs every check in order (cheap first) and writes cufile.json; stops at the first refusal.
PrepareResult PrepareLaunch(const LaunchConfig& config, const Environment& env,
                            const LauncherIo& io = {});

// Human-readable plan for --dry-run (no secret values: they are never in the plan).
std::string DescribePlan(const ExecPlan& plan);

// execve; returns only on failure.
Refusal ExecGateway(const ExecPlan& plan, const Environment& env);

// The whole `run` subcommand; returns the process exit code when it does not exec.
int RunLauncher(const std::vector<std::string>& args, const Environment& env);

}  // namespace rdmastack::gateway
