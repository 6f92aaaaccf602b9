#pragma once
// Runs `check`: probe, evaluate, render. Separate from main() so tests and the benchmark can run
// it in-process.

#include <memory>
#include <string>

#include "agents/node-agent/cli/check_options.h"
#include "node/checks/check.h"
#include "node/probe/facts.h"
#include "node/probe/prober_choice.h"

namespace rdmastack::agent {

struct CheckRun {
  node::NodeFacts facts;
  node::Evaluation evaluation;
  std::string rendered;
};
StatusOr<CheckRun> RunCheck(const CheckOptions& options);

}  // namespace rdmastack::agent
