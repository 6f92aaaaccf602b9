#include "tests/harness/node-runtime/oci_shim.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/harness/node-runtime/process_util.h"

namespace rdmastack::sim {
namespace {

std::string ErrnoText(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// The container's root at <bundle>/rootfs, in the shim's own mount namespace (gone with it): the
// image's cached root below, the container's scratch directory above.
std::string MountRoot(const LaunchSpec& spec) {
  if (::unshare(CLONE_NEWNS) != 0) return ErrnoText("unshare mount namespace");
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return ErrnoText("make / private");
  }
  const std::string root = spec.oci_bundle + "/rootfs";
  if (::mkdir(root.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoText("mkdir " + root);
  // An overlay even for a read-only root: runc creates the mount points of the pod's volumes in it
  // before it makes the root read-only (root.readonly), as on a containerd snapshot.
  const std::string upper = spec.scratch_dir + "/upper", work = spec.scratch_dir + "/work";
  for (const std::string& d : {upper, work}) {
    if (::mkdir(d.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoText("mkdir " + d);
  }
  const std::string options =
      "lowerdir=" + spec.oci_lower_root + ",upperdir=" + upper + ",workdir=" + work;
  if (::mount("overlay", root.c_str(), "overlay", 0, options.c_str()) != 0) {
    return ErrnoText("mount overlay on " + root);
  }
  return "";
}

// The children of `pid` as the host sees them (every thread's list).
std::vector<pid_t> Children(pid_t pid) {
  std::vector<pid_t> out;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = ::opendir(tasks.c_str());
  if (dir == nullptr) return out;
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::istringstream in(ReadSmallFile(tasks + "/" + e->d_name + "/children"));
    for (pid_t c; in >> c;) out.push_back(c);
  }
  ::closedir(dir);
  return out;
}

// The host PID of the descendant of `runc` that is `ns_pid` in runc's PID namespace (what runc
// wrote to its pid file), from the NSpid lines; -1 when there is none (yet).
pid_t HostPid(pid_t runc, pid_t ns_pid) {
  std::vector<pid_t> todo = Children(runc);
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    std::istringstream status(ReadSmallFile("/proc/" + std::to_string(p) + "/status"));
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("NSpid:", 0) != 0) continue;
      std::istringstream fields(line.substr(6));
      long host = 0, inner = 0;
      if (fields >> host >> inner && inner == ns_pid) return static_cast<pid_t>(host);
    }
    for (pid_t c : Children(p)) todo.push_back(c);
  }
  return -1;
}

// The last error runc logged (--log-format json: {"level":"error","msg":"..."}), unquoted.
std::string RuncError(const std::string& log_file) {
  std::istringstream lines(ReadSmallFile(log_file));
  std::string last;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\"level\":\"error\"") == std::string::npos) continue;
    const size_t at = line.find("\"msg\":\"");
    if (at == std::string::npos) continue;
    std::string msg;
    for (size_t i = at + 7; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) ++i;
      msg.push_back(line[i]);
    }
    last = msg;
  }
  return last;
}

[[noreturn]] void ExecRunc(const LaunchSpec& spec, const std::string& log_file,
                           const std::string& runc_pid_file) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (!spec.host_pid) {
    // runc reads /proc for the PIDs it made: give it a proc of its own PID namespace.
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
      std::fprintf(stderr, "rdmastack-node-shim: %s\n", ErrnoText("mount proc for runc").c_str());
      ::_exit(126);
    }
  }
  ResetSignals();
  std::vector<std::string> args = {
      spec.runc,          "--root",         spec.runc_root, "--log",
      log_file,           "--log-format",   "json",         "run",
      "--bundle",         spec.oci_bundle,  "--pid-file",   runc_pid_file,
      "--no-new-keyring", spec.container_id};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(spec.runc.c_str(), argv.data());
  std::fprintf(stderr, "rdmastack-node-shim: %s\n", ErrnoText("exec " + spec.runc).c_str());
  ::_exit(126);
}

}  // namespace

int RunOciContainer(const LaunchSpec& spec, const sigset_t& forwarded) {
  auto fail = [&](const std::string& why) {
    WriteFileAtomically(spec.error_file, why);
    std::fprintf(stderr, "rdmastack-node-shim: container did not start: %s\n", why.c_str());
    return kStartErrorExitCode;
  };
  if (std::string why = MountRoot(spec); !why.empty()) return fail(why);
  if (!spec.host_pid && ::unshare(CLONE_NEWPID) != 0) {
    return fail(ErrnoText("unshare PID namespace"));
  }
  const std::string log_file = spec.oci_bundle + "/runc.log";
  const std::string runc_pid_file = spec.oci_bundle + "/runc.pid";
  ::unlink(runc_pid_file.c_str());
  const pid_t runc = ::fork();
  if (runc < 0) return fail(ErrnoText("fork"));
  if (runc == 0) ExecRunc(spec, log_file, runc_pid_file);

  pid_t main_pid = -1;
  int status = 0;
  const timespec tick{0, 20'000'000};
  for (;;) {
    if (main_pid <= 0) {
      std::istringstream in(ReadSmallFile(runc_pid_file));
      long ns_pid = 0;
      if (in >> ns_pid && ns_pid > 0) {
        main_pid =
            spec.host_pid ? static_cast<pid_t>(ns_pid) : HostPid(runc, static_cast<pid_t>(ns_pid));
        if (main_pid > 0) WriteFileAtomically(spec.pid_file, std::to_string(main_pid) + "\n");
      }
    }
    siginfo_t info{};
    const int sig = ::sigtimedwait(&forwarded, &info, main_pid > 0 ? nullptr : &tick);
    if (sig < 0) continue;
    if (sig != SIGCHLD) {
      ::kill(runc, sig);  // runc forwards it to the container's first process
      continue;
    }
    if (::waitpid(runc, &status, WNOHANG) == runc) break;
  }
  const int code = ExitCodeOf(status);
  // No pid file: runc never created the container (a bad config, an executable not found).
  if (!Exists(runc_pid_file) && code != 0) {
    const std::string why = RuncError(log_file);
    return fail(why.empty()
                    ? "runc exited with " + std::to_string(code) + " before the container started"
                    : why);
  }
  return code;
}

}  // namespace rdmastack::sim
