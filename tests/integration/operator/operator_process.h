#pragma once
// Runs build/bin/rdmastack-operator as a child process for integration tests: output to a file the
// test reads, signals, exit status with a timeout, and the leader identity the process logged.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace rdmastack::testing {

std::string OperatorBinary();

// Flags that keep the operator's agent hub to the test: its certificates and CA ConfigMap in `ns`
// (which must exist) and a port the kernel picks, so that two replicas on one host never collide.
std::vector<std::string> AgentHubTestFlags(const std::string& ns);

class OperatorProcess {
 public:
  // `name` labels the output file; `args` follow the binary.
  OperatorProcess(const std::string& name, std::vector<std::string> args);
  ~OperatorProcess();  // SIGKILLs a process still running
  OperatorProcess(const OperatorProcess&) = delete;
  OperatorProcess& operator=(const OperatorProcess&) = delete;

  void Signal(int sig) const;
  // The exit code (128 + signal when killed), or nullopt if still running after `timeout`.
  std::optional<int> WaitExit(std::chrono::milliseconds timeout);
  std::string Output() const;
  // Waits until the output contains `text`.
  bool WaitForOutput(const std::string& text, std::chrono::seconds timeout) const;
  // The identity it put in its user agent ("starting as <identity> against"), once logged.
  std::string Identity(std::chrono::seconds timeout = std::chrono::seconds(20)) const;
  const std::string& output_path() const { return output_path_; }
  pid_t pid() const { return pid_; }

 private:
  std::string output_path_;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

}  // namespace rdmastack::testing
