#include "node/probe/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "node/probe/parsers.h"

extern char** environ;

namespace rdmastack::node {
namespace {

constexpr size_t kMaxCapture = 1 << 20;

struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd) {
      if (f >= 0) ::close(f);
    }
  }
  void CloseWrite() {
    ::close(fd[1]);
    fd[1] = -1;
  }
};

}  // namespace

StatusOr<CapturedOutput> RunAndCapture(const std::vector<std::string>& argv,
                                       std::chrono::milliseconds timeout) {
  if (argv.empty()) return InvalidArgumentError("no program to run");
  Pipe out, err;
  if (::pipe2(out.fd, O_CLOEXEC) != 0 || ::pipe2(err.fd, O_CLOEXEC) != 0) {
    return InternalError(std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return UnavailableError("cannot run " + argv[0] + ": " + std::strerror(rc));
  out.CloseWrite();
  err.CloseWrite();

  CapturedOutput captured;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  int open_fds = 2;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
    if (::poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    std::string* sinks[2] = {&captured.out, &captured.err};
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        if (sinks[i]->size() < kMaxCapture) sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(i == 0 ? out.fd[0] : err.fd[0]);
        (i == 0 ? out.fd[0] : err.fd[0]) = -1;
        --open_fds;
      }
    }
  }
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const auto lines = SplitNonEmpty(captured.err, '\n');
  const std::string said = lines.empty() ? "" : ": " + std::string(lines.front());
  if (timed_out) {
    return DeadlineExceededError(argv[0] + " " + argv[1 % argv.size()] + " did not finish within " +
                                 std::to_string(timeout.count()) + " ms; killed");
  }
  if (WIFSIGNALED(status)) {
    return UnavailableError(argv[0] + " killed by signal " + std::to_string(WTERMSIG(status)) +
                            said);
  }
  if (WEXITSTATUS(status) != 0) {
    return UnavailableError(argv[0] + " exited " + std::to_string(WEXITSTATUS(status)) + said);
  }
  return captured;
}

}  // namespace rdmastack::node
