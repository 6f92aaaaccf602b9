#include "tests/harness/node-runtime/container_process.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include "tests/harness/node-runtime/process_util.h"
#include "tests/harness/node-runtime/spawn.h"

namespace rdmastack::sim {
ContainerProcess::ContainerProcess(ContainerProcess&& other) noexcept {
  *this = std::move(other);
}

ContainerProcess& ContainerProcess::operator=(ContainerProcess&& other) noexcept {
  if (this == &other) return *this;
  if (pidfd_ >= 0) ::close(pidfd_);
  shim_pid_ = std::exchange(other.shim_pid_, -1);
  pidfd_ = std::exchange(other.pidfd_, -1);
  main_pid_ = std::exchange(other.main_pid_, -1);
  pid_file_ = std::move(other.pid_file_);
  exit_code_ = std::exchange(other.exit_code_, std::nullopt);
  return *this;
}

ContainerProcess::~ContainerProcess() {
  if (pidfd_ >= 0) ::close(pidfd_);
}

StatusOr<ContainerProcess> ContainerProcess::Start(const std::string& shim,
                                                   const std::string& spec_file,
                                                   const std::string& pid_file) {
  RDMASTACK_ASSIGN_OR_RETURN(pid_t pid, SpawnProcess({shim, "run", spec_file}, /*quiet=*/false));
  ContainerProcess process;
  process.shim_pid_ = pid;
  process.pid_file_ = pid_file;
  process.pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  return process;
}

pid_t ContainerProcess::MainPid() {
  if (main_pid_ > 0 || pid_file_.empty()) return main_pid_;
  std::ifstream in(pid_file_);
  long pid = 0;
  if (in >> pid && pid > 0) main_pid_ = static_cast<pid_t>(pid);
  return main_pid_;
}

void ContainerProcess::Signal(int sig) const {
  if (shim_pid_ > 0 && !exit_code_) ::kill(shim_pid_, sig);
}

std::optional<int> ContainerProcess::TryReap() {
  if (exit_code_ || shim_pid_ <= 0) return exit_code_;
  int status = 0;
  if (::waitpid(shim_pid_, &status, WNOHANG) == shim_pid_) exit_code_ = ExitCodeOf(status);
  return exit_code_;
}

int ContainerProcess::Wait() {
  while (!exit_code_ && shim_pid_ > 0) {
    int status = 0;
    pid_t r = ::waitpid(shim_pid_, &status, 0);
    if (r == shim_pid_) exit_code_ = ExitCodeOf(status);
    if (r < 0 && errno != EINTR) exit_code_ = 255;
  }
  return exit_code_.value_or(255);
}

}  // namespace rdmastack::sim
