#pragma once
// One run of one container: the shim process the runtime spawned for it. The shim's exit status
// is the container's (128 + N when signal N ended it); SIGKILL to the shim ends every process of
// the container (see shim_main.cc).

#include <sys/types.h>

#include <optional>
#include <string>

#include "base/status.h"

namespace rdmastack::sim {

class ContainerProcess {
 public:
  ContainerProcess() = default;
  ContainerProcess(ContainerProcess&& other) noexcept;
  ContainerProcess& operator=(ContainerProcess&& other) noexcept;
  ~ContainerProcess();

  // Spawns `shim run spec_file`, with nothing blocked and the runtime's stdout/stderr for the
  // shim's own early errors.
  static StatusOr<ContainerProcess> Start(const std::string& shim, const std::string& spec_file,
                                          const std::string& pid_file);

  pid_t shim_pid() const { return shim_pid_; }
  // Becomes readable when the shim exits (pidfd_open), so a worker can sleep until then; -1 if
  // the kernel has no pidfds (the worker then notices exits on its next wake-up).
  int exit_fd() const { return pidfd_; }
  // The container's main process as the host sees it, once the shim has written it; -1 before.
  pid_t MainPid();
  // To the shim, which forwards it; SIGKILL is not forwarded but ends the container all the same.
  void Signal(int sig) const;
  // The exit code once the shim has ended (non-blocking); nullopt while it runs.
  std::optional<int> TryReap();
  // Blocks until the shim has ended.
  int Wait();

 private:
  pid_t shim_pid_ = -1;
  int pidfd_ = -1;
  pid_t main_pid_ = -1;
  std::string pid_file_;
  std::optional<int> exit_code_;
};

}  // namespace rdmastack::sim
