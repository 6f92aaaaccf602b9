#pragma once
// The three commands over a k8s::Client: read what the view needs (list and get only; the
// plugin never writes), build the view, render it. The only code between main() and the pure
// views; tested with an in-memory client.

#include <cstdint>
#include <string>

#include "cli/kubectl-rdmastack/api_errors.h"
#include "cli/kubectl-rdmastack/options.h"
#include "operator/k8s/client.h"

namespace rdmastack::plugin {

struct CommandResult {
  std::string out;  // stdout
  std::string err;  // stderr: warnings, or the one-line error
  int exit_code = 0;
};

// Every string that came from the cluster reaches stdout or stderr escaped (printable.h,
// docs/plugin.md "Hostile strings"). `now`: unix seconds, for ages in tables. `default_namespace`:
// the kubeconfig context's.
CommandResult RunStatus(k8s::Client& client, const Options& options, const ClusterInfo& cluster,
                        int64_t now);
CommandResult RunWhy(k8s::Client& client, const Options& options, const ClusterInfo& cluster,
                     int64_t now);
CommandResult RunUpgrade(k8s::Client& client, const Options& options,
                         const std::string& default_namespace, const ClusterInfo& cluster,
                         int64_t now);

// `result` with its stdout and stderr made printable (printable.h), line breaks kept: the last
// step of every text output, must-gather's included.
CommandResult PrintableResult(CommandResult result);

// -n, else the context's namespace, else "default" (as kubectl).
std::string UpgradeNamespace(const Options& options, const std::string& default_namespace);

}  // namespace rdmastack::plugin
