#include "tests/harness/child_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "tests/harness/cluster_env.h"

namespace rdmastack::testing {

ChildProcess::ChildProcess(const std::string& name, std::vector<std::string> argv)
    : output_path_(::testing::TempDir() + UniqueName(name) + ".log") {
  std::ofstream(output_path_, std::ios::trunc).close();
  pid_ = fork();
  if (pid_ == 0) {
    const int fd = open(output_path_.c_str(), O_WRONLY | O_APPEND);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    // The test process may have blocked signals; the child sets up its own.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exit_code_) {
    kill(pid_, SIGCONT);
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void ChildProcess::Signal(int sig) const {
  kill(pid_, sig);
}

std::optional<int> ChildProcess::WaitExit(std::chrono::milliseconds timeout) {
  if (exit_code_) return exit_code_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return exit_code_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string ChildProcess::Output() const {
  std::ifstream in(output_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool ChildProcess::WaitForOutput(const std::string& text, std::chrono::seconds timeout) const {
  return Eventually([&] { return Output().find(text) != std::string::npos; }, timeout);
}

}  // namespace rdmastack::testing
