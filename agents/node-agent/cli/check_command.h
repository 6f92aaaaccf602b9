#pragma once
// Runs `check`: probe, evaluate, render. Separate from main() so tests and the benchmark can run
// it in-process.

#include <memory>
#include <string>

#include "agents/node-agent/checks/check.h"
#include "agents/node-agent/cli/check_options.h"
#include "agents/node-agent/probe/device_prober.h"
#include "agents/node-agent/probe/facts.h"

namespace rdmastack::agent {

// The prober the options ask for: recorded file, live libraries (configured by `live`), or none.
StatusOr<std::unique_ptr<DeviceProber>> MakeProber(const std::string& root,
                                                   const std::string& probes_file, bool live_probes,
                                                   const LiveProberOptions& live = {});

struct CheckRun {
  NodeFacts facts;
  Evaluation evaluation;
  std::string rendered;
};
StatusOr<CheckRun> RunCheck(const CheckOptions& options);

}  // namespace rdmastack::agent
