#pragma once
// Runs build/bin/rdmastack-operator as a child process for integration tests: output to a file the
// test reads, signals, exit status with a timeout, and the leader identity the process logged.

#include <chrono>
#include <string>
#include <vector>

#include "tests/harness/child_process.h"

namespace rdmastack::testing {

std::string OperatorBinary();

// Flags that keep the operator's agent hub to the test: its certificates and CA ConfigMap in `ns`
// (which must exist) and a port the kernel picks, so that two replicas on one host never collide.
std::vector<std::string> AgentHubTestFlags(const std::string& ns);

class OperatorProcess : public ChildProcess {
 public:
  // `name` labels the output file; `args` follow the binary.
  OperatorProcess(const std::string& name, std::vector<std::string> args);

  // The identity it put in its user agent ("starting as <identity> against"), once logged.
  std::string Identity(std::chrono::seconds timeout = std::chrono::seconds(20)) const;
};

}  // namespace rdmastack::testing
