#pragma once
// Which DeviceProber a binary uses, from its flags: one rule for the agent's `check` and `run` and
// for rdmastack-client, so that all three read the same flags the same way.

#include <memory>
#include <string>

#include "base/status.h"
#include "node/probe/device_prober.h"

namespace rdmastack::node {

// Where the verbs/NVML facts come from, the same rule for `check`, `run` and rdmastack-client:
//   1. --probes-file given: its recorded results, whatever else is set. It overrides
//      --live-probes, so a simulated node's harness can append it (operator --agent-arg,
//      --client-arg) to the DaemonSet's args, which carry --live-probes for real nodes.
//   2. else --root / or --live-probes: the live libraries (NVML looked for below the root).
//   3. else nothing: a fixture tree is not this machine, so its verbs/NVML facts stay unknown.
enum class ProbeSource { kRecorded, kLive, kNone };
ProbeSource ChooseProbeSource(const std::string& root, const std::string& probes_file,
                              bool live_probes);
// One line for the log at start-up, e.g. "live (libibverbs; NVML below /host)".
std::string DescribeProbeSource(const std::string& root, const std::string& probes_file,
                                bool live_probes);

// The prober ChooseProbeSource picks: recorded file, live libraries (configured by `live`, whose
// root is set to `root`), or none.
StatusOr<std::unique_ptr<DeviceProber>> MakeProber(const std::string& root,
                                                   const std::string& probes_file, bool live_probes,
                                                   const LiveProberOptions& live = {});

}  // namespace rdmastack::node
