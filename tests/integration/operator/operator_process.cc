#include "tests/integration/operator/operator_process.h"

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

std::string OperatorBinary() {
  return BinaryDir() + "/bin/rdmastack-operator";
}

OperatorProcess::OperatorProcess(const std::string& name, std::vector<std::string> args)
    : output_path_(::testing::TempDir() + UniqueName(name) + ".log") {
  // The pod webhook listens on a fixed port by default; tests that want it pass their own
  // --webhook-bind-address (the last one wins), the others must not collide on that port.
  args.insert(args.begin(), "--webhook-bind-address=0");
  args.insert(args.begin(), OperatorBinary());
  std::ofstream(output_path_, std::ios::trunc).close();
  pid_ = fork();
  if (pid_ == 0) {
    const int fd = open(output_path_.c_str(), O_WRONLY | O_APPEND);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    // The test process may have blocked signals; the operator sets up its own.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
}

OperatorProcess::~OperatorProcess() {
  if (pid_ > 0 && !exit_code_) {
    kill(pid_, SIGCONT);
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void OperatorProcess::Signal(int sig) const {
  kill(pid_, sig);
}

std::optional<int> OperatorProcess::WaitExit(std::chrono::milliseconds timeout) {
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

std::string OperatorProcess::Output() const {
  std::ifstream in(output_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool OperatorProcess::WaitForOutput(const std::string& text, std::chrono::seconds timeout) const {
  return Eventually([&] { return Output().find(text) != std::string::npos; }, timeout);
}

std::string OperatorProcess::Identity(std::chrono::seconds timeout) const {
  static const std::string kBefore = "starting as ";
  std::string identity;
  Eventually(
      [&] {
        const std::string out = Output();
        const size_t at = out.find(kBefore);
        if (at == std::string::npos) return false;
        const size_t end = out.find(' ', at + kBefore.size());
        if (end == std::string::npos) return false;
        identity = out.substr(at + kBefore.size(), end - at - kBefore.size());
        return true;
      },
      timeout);
  return identity;
}

std::vector<std::string> AgentHubTestFlags(const std::string& ns) {
  return {"--agent-namespace=" + ns, "--agent-bind-address=127.0.0.1:0"};
}

}  // namespace rdmastack::testing
