#pragma once
// `kubectl rdmastack must-gather`: checks that DIR takes a file and that the API server answers,
// runs the gather steps, archives the bundle and writes it to DIR atomically (a .partial file
// renamed at the end). The archive is written whatever the steps' failures; they are in its
// SUMMARY.md and counted on stderr.

#include <cstdint>
#include <functional>
#include <string>

#include "cli/kubectl-rdmastack/api_errors.h"
#include "cli/kubectl-rdmastack/commands.h"
#include "cli/kubectl-rdmastack/must_gather/gather.h"
#include "cli/kubectl-rdmastack/options.h"

namespace rdmastack::plugin {

// `progress` gets one line per step (main prints them on stderr unless -q). The result's out is
// the archive's path and a newline.
CommandResult RunMustGather(const ApiAccess& api, const Options& options,
                            const ClusterInfo& cluster, int64_t now,
                            const std::function<void(const std::string&)>& progress);

}  // namespace rdmastack::plugin
