#pragma once
// `kubectl rdmastack bench PROFILE`: the I/O around bench_job.h. Reads the profile and its client
// DaemonSet, creates the Job, waits for it, reads the report from its pod's log through the API
// server, deletes the Job, and renders the report. The one command of the plugin that writes: a
// Job in the profile's namespace, with the caller's own credentials, deleted before it returns.

#include <chrono>
#include <functional>
#include <string>

#include "cli/kubectl-rdmastack/commands.h"
#include "cli/kubectl-rdmastack/must_gather/gather.h"

namespace rdmastack::plugin {

struct BenchIo {
  ApiAccess api;
  std::function<void(const std::string&)> progress;  // one line per step (stderr)
  std::function<void(std::chrono::milliseconds)> sleep;
  std::function<std::chrono::steady_clock::time_point()> now = std::chrono::steady_clock::now;
};

CommandResult RunBench(const BenchIo& io, const Options& options,
                       const std::string& default_namespace, const ClusterInfo& cluster);

}  // namespace rdmastack::plugin
