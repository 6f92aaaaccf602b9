#pragma once
// A program run as a child of the test: its stdout and stderr go to a file the test reads, and the
// test can signal it, wait for a line of output, and collect its exit status.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace rdmastack::testing {

class ChildProcess {
 public:
  // Runs argv[0] (a path) with argv; `name` labels the output file in the test's temp directory.
  ChildProcess(const std::string& name, std::vector<std::string> argv);
  virtual ~ChildProcess();  // SIGKILLs a process still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  void Signal(int sig) const;
  // The exit code (128 + signal when killed), or nullopt if still running after `timeout`.
  std::optional<int> WaitExit(std::chrono::milliseconds timeout);
  std::string Output() const;
  // Waits until the output contains `text`.
  bool WaitForOutput(const std::string& text, std::chrono::seconds timeout) const;
  const std::string& output_path() const { return output_path_; }
  pid_t pid() const { return pid_; }

 private:
  std::string output_path_;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

}  // namespace rdmastack::testing
