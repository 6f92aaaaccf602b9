#include "tests/harness/node-runtime/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace rdmastack::sim {
namespace {

// `output`: empty = inherit stdout/stderr; otherwise both go to that file (created or truncated).
StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, bool quiet_stdin,
                      const std::string& output) {
  if (argv.empty()) return InvalidArgumentError("spawn: empty argv");
  std::vector<std::string> args = argv;
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet_stdin) posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (!output.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0].c_str(), &actions, &attr, cargs.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return InternalError("spawn " + args[0] + ": " + std::strerror(rc));
  return pid;
}

std::string LastLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace

StatusOr<pid_t> SpawnProcess(const std::vector<std::string>& argv, bool quiet) {
  return Spawn(argv, quiet, quiet ? "/dev/null" : "");
}

Status RunToCompletion(const std::vector<std::string>& argv, const std::string& output_file) {
  RDMASTACK_ASSIGN_OR_RETURN(pid_t pid, Spawn(argv, /*quiet_stdin=*/true, output_file));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return InternalError("wait for " + argv[0] + ": " + std::strerror(errno));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return OkStatus();
  std::ostringstream why;
  why << argv[0];
  for (size_t i = 1; i < argv.size() && i < 4; ++i) why << ' ' << argv[i];
  if (WIFEXITED(status)) {
    why << " exited with " << WEXITSTATUS(status);
  } else {
    why << " was killed by signal " << WTERMSIG(status);
  }
  if (const std::string last = LastLine(output_file); !last.empty()) why << ": " << last;
  return InternalError(why.str());
}

}  // namespace rdmastack::sim
