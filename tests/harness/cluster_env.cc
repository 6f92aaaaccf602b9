#include "tests/harness/cluster_env.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "operator/k8s/config.h"

extern char** environ;

namespace rdmastack::testing {
namespace {

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? std::string(v) : fallback;
}

}  // namespace

CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& stdin_data) {
  CommandResult result;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0 ||
      pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.err = "pipe: " + std::string(std::strerror(errno));
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    result.err = "spawn " + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  // Feed stdin and drain both outputs together so that no pipe fills and blocks the child.
  size_t written = 0;
  if (stdin_data.empty()) {
    close(in_pipe[1]);
    in_pipe[1] = -1;
  } else {
    fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
  }
  std::array<char, 65536> buf{};
  bool out_open = true, err_open = true;
  while (out_open || err_open) {
    std::array<pollfd, 3> fds{{{out_open ? out_pipe[0] : -1, POLLIN, 0},
                               {err_open ? err_pipe[0] : -1, POLLIN, 0},
                               {in_pipe[1], POLLOUT, 0}}};
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (in_pipe[1] >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = write(in_pipe[1], stdin_data.data() + written, stdin_data.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 || written == stdin_data.size()) {
        close(in_pipe[1]);
        in_pipe[1] = -1;
      }
    }
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf.data(), buf.size());
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
        continue;
      }
      (i == 0 ? result.out : result.err).append(buf.data(), static_cast<size_t>(n));
    }
  }
  if (in_pipe[1] >= 0) close(in_pipe[1]);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

CommandResult ClusterEnv::Kubectl(std::vector<std::string> args,
                                  const std::string& stdin_data) const {
  return KubectlAs(kubeconfig, std::move(args), stdin_data);
}

CommandResult ClusterEnv::KubectlAs(const std::string& config, std::vector<std::string> args,
                                    const std::string& stdin_data) const {
  std::vector<std::string> argv{kubectl, "--kubeconfig", config};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, stdin_data);
}

k8s::Client* ClusterEnv::Api() const {
  static std::mutex mu;
  static std::map<std::string, k8s::ClientPtr> clients;  // by kubeconfig
  std::lock_guard lock(mu);
  auto& client = clients[kubeconfig];
  if (client == nullptr) {
    auto config = k8s::LoadKubeconfig(kubeconfig);
    if (!config.ok()) {
      std::fprintf(stderr, "harness: API client: %s\n", config.status().ToString().c_str());
      return nullptr;
    }
    config->user_agent = "rdmastack-test-harness";
    auto made = k8s::NewRestClient(*config);
    if (!made.ok()) {
      std::fprintf(stderr, "harness: API client: %s\n", made.status().ToString().c_str());
      return nullptr;
    }
    client = std::move(*made);
  }
  return client.get();
}

const ClusterEnv* GetClusterEnv() {
  static const std::optional<ClusterEnv> env = []() -> std::optional<ClusterEnv> {
    std::string kubeconfig = EnvOr("RDMASTACK_KUBECONFIG", "");
    if (kubeconfig.empty()) return std::nullopt;
    ClusterEnv e;
    e.kubeconfig = kubeconfig;
    e.kubectl = EnvOr("RDMASTACK_KUBECTL", "kubectl");
    e.cluster_script = SourcePath("scripts/cluster.sh");
    return e;
  }();
  return env ? &*env : nullptr;
}

bool Eventually(const std::function<bool()>& condition, std::chrono::seconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + timeout;
  while (!condition()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return condition();
    // Most conditions run kubectl (about 50 ms of CPU each), and CI's e2e phase is CPU-bound:
    // a wait past its first seconds polls half as often. 500 ms still sees a 2 s drain.
    std::this_thread::sleep_for(
        std::chrono::milliseconds(now - start < std::chrono::seconds(5) ? 250 : 500));
  }
  return true;
}

std::string UniqueName(const std::string& prefix) {
  static std::atomic<int> counter{0};
  // Fixed width (pid_max is at most 4194304), so that output that names it lines up the same way
  // in every run (golden files).
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "-%07d-%02d", static_cast<int>(getpid()), counter++);
  return prefix + suffix;
}

std::string BinaryDir() {
  std::string dir = EnvOr("RDMASTACK_BINARY_DIR", "");
  if (!dir.empty()) return dir;
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().parent_path().string();
}

std::string SourceDir() {
  return EnvOr("RDMASTACK_SOURCE_DIR", RDMASTACK_SOURCE_DIR_DEFAULT);
}

std::string SourcePath(const std::string& relative) {
  return SourceDir() + "/" + relative;
}

CommandResult InstallCrds(const ClusterEnv& env) {
  static const char* const kCrds[] = {"gatewaypools", "clientprofiles", "rdmanodes"};
  std::vector<std::string> apply{"apply", "--server-side", "--force-conflicts"};
  std::vector<std::string> wait{"wait", "--for=condition=Established", "--timeout=60s"};
  for (const char* crd : kCrds) {
    apply.insert(apply.end(), {"-f", SourcePath(std::string("crds/") + crd + ".yaml")});
    wait.push_back(std::string("crd/") + crd + ".rdmastack.io");
  }
  CommandResult r = env.Kubectl(apply);
  if (r.exit_code != 0) return r;
  return env.Kubectl(wait);
}

}  // namespace rdmastack::testing
