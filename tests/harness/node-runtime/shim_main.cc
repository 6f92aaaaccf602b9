// rdmastack-node-shim: starts one container of a simulated node, or runs a command inside a
// running one (exec probes). The node runtime spawns it; people do not need to.
//
//   rdmastack-node-shim run SPEC.json     (launch_spec.h)
//   rdmastack-node-shim exec PID -- ARGV...
//
// `run` with an OCI bundle in the spec hands the container to runc (oci_shim.h). Otherwise it
// joins the node's network namespace, makes a PID namespace whose first process is the
// container (so killing the shim, even with SIGKILL, ends every process of the container),
// forwards signals to it and exits with its status (128 + signal when it was killed). `exec` joins
// the namespaces and root of process PID and runs ARGV there with that process's environment.

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/harness/node-runtime/container_root.h"
#include "tests/harness/node-runtime/exec_path.h"
#include "tests/harness/node-runtime/launch_spec.h"
#include "tests/harness/node-runtime/oci_shim.h"
#include "tests/harness/node-runtime/process_util.h"

namespace rdmastack::sim {
namespace {

constexpr char kProgram[] = "rdmastack-node-shim";

std::string ReadFile(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = static_cast<bool>(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<char*> CStrings(std::vector<std::string>& values) {
  std::vector<char*> out;
  for (std::string& v : values) out.push_back(v.data());
  out.push_back(nullptr);
  return out;
}

[[noreturn]] void ReportAndExit(int fd, const std::string& message) {
  (void)!::write(fd, message.data(), message.size());
  ::_exit(127);
}

// The container's first process: own mount and UTS namespaces, the container root, then exec.
[[noreturn]] void StartContainer(LaunchSpec& spec, int report_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::setsid();
  if (::unshare(CLONE_NEWNS | CLONE_NEWUTS) != 0) {
    ReportAndExit(report_fd, std::string("unshare mount/uts namespace: ") + std::strerror(errno));
  }
  if (!spec.hostname.empty() && ::sethostname(spec.hostname.data(), spec.hostname.size()) != 0) {
    ReportAndExit(report_fd, std::string("sethostname: ") + std::strerror(errno));
  }
  if (Status s = EnterContainerRoot(spec, !spec.host_pid); !s.ok()) {
    ReportAndExit(report_fd, s.message());
  }
  StatusOr<std::string> exe = ResolveExecutable(spec.argv[0], spec.env);
  if (!exe.ok()) ReportAndExit(report_fd, exe.status().message());
  ResetSignals();
  std::vector<char*> argv = CStrings(spec.argv);
  std::vector<char*> envp = CStrings(spec.env);
  ::execve(exe->c_str(), argv.data(), envp.data());
  ReportAndExit(report_fd, "exec " + *exe + ": " + std::strerror(errno));
}

int Run(const std::string& spec_path) {
  bool ok = false;
  const std::string text = ReadFile(spec_path, &ok);
  if (!ok) {
    std::fprintf(stderr, "%s: cannot read %s\n", kProgram, spec_path.c_str());
    return kStartErrorExitCode;
  }
  StatusOr<LaunchSpec> parsed = LaunchSpecFromJson(text);
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s: %s: %s\n", kProgram, spec_path.c_str(),
                 parsed.status().message().c_str());
    return kStartErrorExitCode;
  }
  LaunchSpec& spec = *parsed;
  int log = ::open(spec.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) {
    std::fprintf(stderr, "%s: open %s: %s\n", kProgram, spec.log_file.c_str(),
                 std::strerror(errno));
    return kStartErrorExitCode;
  }
  int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ::dup2(null, 0);
  ::dup2(log, 1);
  ::dup2(log, 2);
  ::close(log);
  ::close(null);

  auto fail = [&](const std::string& why) {
    WriteFileAtomically(spec.error_file, why);
    std::fprintf(stderr, "%s: container did not start: %s\n", kProgram, why.c_str());
    return kStartErrorExitCode;
  };
  sigset_t handled;
  sigemptyset(&handled);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCHLD}) {
    sigaddset(&handled, sig);
  }
  ::sigprocmask(SIG_BLOCK, &handled, nullptr);
  if (!spec.oci_bundle.empty()) return RunOciContainer(spec, handled);

  if (!spec.netns_path.empty()) {
    int fd = ::open(spec.netns_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::setns(fd, CLONE_NEWNET) != 0) {
      return fail("join network namespace " + spec.netns_path + ": " + std::strerror(errno));
    }
    ::close(fd);
  }
  if (!spec.host_pid && ::unshare(CLONE_NEWPID) != 0) {
    return fail(std::string("unshare PID namespace: ") + std::strerror(errno));
  }
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return fail(std::string("pipe: ") + std::strerror(errno));
  pid_t child = ::fork();
  if (child < 0) return fail(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    ::close(report[0]);
    StartContainer(spec, report[1]);
  }
  ::close(report[1]);
  WriteFileAtomically(spec.pid_file, std::to_string(child) + "\n");

  // The report pipe closes on a successful exec; anything read from it is why the start failed.
  std::string why;
  char buf[512];
  for (ssize_t n; (n = ::read(report[0], buf, sizeof(buf))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    why.append(buf, static_cast<size_t>(n));
  }
  ::close(report[0]);
  if (!why.empty()) {
    ::waitpid(child, nullptr, 0);
    return fail(why);
  }

  for (;;) {
    siginfo_t info{};
    if (::sigwaitinfo(&handled, &info) < 0) continue;
    if (info.si_signo != SIGCHLD) {
      ::kill(child, info.si_signo);
      continue;
    }
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) {
      // With the host's PID namespace nothing ends the container's other processes for us.
      if (spec.host_pid) ::kill(-child, SIGKILL);
      return ExitCodeOf(status);
    }
  }
}

bool SameNamespace(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_ino == sb.st_ino &&
         sa.st_dev == sb.st_dev;
}

int Exec(const std::string& pid, std::vector<std::string> argv) {
  const std::string proc = "/proc/" + pid;
  bool ok = false;
  const std::string environ_text = ReadFile(proc + "/environ", &ok);
  if (!ok) {
    std::fprintf(stderr, "%s: process %s is not running\n", kProgram, pid.c_str());
    return 126;
  }
  std::vector<std::string> env;
  std::istringstream entries(environ_text);
  for (std::string e; std::getline(entries, e, '\0');) {
    if (!e.empty()) env.push_back(e);
  }
  int root = ::open((proc + "/root").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) {
    std::fprintf(stderr, "%s: open %s/root: %s\n", kProgram, proc.c_str(), std::strerror(errno));
    return 126;
  }
  // The mount namespace last: joining it resets the root and working directory.
  for (const char* ns : {"uts", "net", "pid", "mnt"}) {
    const std::string mine = std::string("/proc/self/ns/") + ns;
    const std::string theirs = proc + "/ns/" + ns;
    if (SameNamespace(mine, theirs)) continue;
    int fd = ::open(theirs.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::setns(fd, 0) != 0) {
      std::fprintf(stderr, "%s: join %s: %s\n", kProgram, theirs.c_str(), std::strerror(errno));
      return 126;
    }
    ::close(fd);
  }
  if (::fchdir(root) != 0 || ::chroot(".") != 0 || ::chdir("/") != 0) {
    std::fprintf(stderr, "%s: enter the root of %s: %s\n", kProgram, pid.c_str(),
                 std::strerror(errno));
    return 126;
  }
  ::close(root);
  pid_t child = ::fork();
  if (child < 0) return 126;
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ResetSignals();
    StatusOr<std::string> exe = ResolveExecutable(argv[0], env);
    if (!exe.ok()) {
      std::fprintf(stderr, "%s\n", exe.status().message().c_str());
      ::_exit(127);
    }
    std::vector<char*> args = CStrings(argv);
    std::vector<char*> envp = CStrings(env);
    ::execve(exe->c_str(), args.data(), envp.data());
    std::fprintf(stderr, "exec %s: %s\n", exe->c_str(), std::strerror(errno));
    ::_exit(126);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return ExitCodeOf(status);
}

int Usage() {
  std::fprintf(stderr, "usage: %s run SPEC.json | %s exec PID -- ARGV...\n", kProgram, kProgram);
  return 2;
}

}  // namespace
}  // namespace rdmastack::sim

int main(int argc, char** argv) {
  using namespace rdmastack::sim;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "run") return Run(args[1]);
  if (args.size() >= 4 && args[0] == "exec" && args[2] == "--") {
    return Exec(args[1], std::vector<std::string>(args.begin() + 3, args.end()));
  }
  return Usage();
}
