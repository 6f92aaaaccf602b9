#include "tests/harness/node-runtime/container_root.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "tests/harness/node-runtime/mount_table.h"

namespace rdmastack::sim {
namespace {

constexpr char kOldRoot[] = "/.oldroot";

Status Errno(const std::string& what) {
  return InternalError(what + ": " + std::strerror(errno));
}

Status MkdirAll(const std::string& path) {
  std::string partial;
  std::istringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    partial += "/" + part;
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) return Errno("mkdir " + partial);
  }
  return OkStatus();
}

Status Mount(const std::string& source, const std::string& target, const char* type,
             unsigned long flags, const std::string& data = "") {
  if (::mount(source.c_str(), target.c_str(), type, flags, data.empty() ? nullptr : data.c_str()) !=
      0) {
    return Errno("mount " + source + " on " + target);
  }
  return OkStatus();
}

std::string Parent(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

// A mount point for `source` at `target` (inside the new root): a directory, or an empty file
// when the source is not a directory.
Status MakeMountPoint(const std::string& source, const std::string& target) {
  struct stat st {};
  if (::stat(source.c_str(), &st) != 0) return Errno("stat " + source);
  if (S_ISDIR(st.st_mode)) return MkdirAll(target);
  RDMASTACK_RETURN_IF_ERROR(MkdirAll(Parent(target)));
  int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 && errno != EEXIST && errno != EISDIR) return Errno("create " + target);
  if (fd >= 0) ::close(fd);
  return OkStatus();
}

Status Bind(const std::string& source, const std::string& target, bool read_only) {
  RDMASTACK_RETURN_IF_ERROR(MakeMountPoint(source, target));
  RDMASTACK_RETURN_IF_ERROR(Mount(source, target, nullptr, MS_BIND | MS_REC));
  if (read_only) {
    RDMASTACK_RETURN_IF_ERROR(Mount("none", target, nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY));
  }
  return OkStatus();
}

bool IsDir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Status MountSystemTrees(const std::vector<std::string>& host_mounts, bool own_pid_namespace) {
  const std::string old = kOldRoot;
  if (own_pid_namespace) {
    RDMASTACK_RETURN_IF_ERROR(MkdirAll("/proc"));
    RDMASTACK_RETURN_IF_ERROR(Mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC));
  } else {
    RDMASTACK_RETURN_IF_ERROR(Bind(old + "/proc", "/proc", false));
  }
  // A sysfs mounted inside the node's network namespace lists that namespace's devices.
  RDMASTACK_RETURN_IF_ERROR(MkdirAll("/sys"));
  if (!Mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC).ok()) {
    RDMASTACK_RETURN_IF_ERROR(Bind(old + "/sys", "/sys", false));
  } else if (IsDir(old + "/sys/fs/cgroup")) {
    RDMASTACK_RETURN_IF_ERROR(Bind(old + "/sys/fs/cgroup", "/sys/fs/cgroup", false));
  }
  for (const std::string& m : host_mounts) {
    // /tmp and /run stay the container's own (the overlay's copy), as in a container image.
    if (m == "/proc" || m == "/sys" || m == "/tmp" || m == "/run") continue;
    if (!IsDir(old + m)) continue;
    RDMASTACK_RETURN_IF_ERROR(Bind(old + m, m, false));
  }
  return OkStatus();
}

}  // namespace

Status EnterContainerRoot(const LaunchSpec& spec, bool own_pid_namespace) {
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return Errno("make / private");
  }
  const std::vector<std::string> host_mounts = TopLevelMounts(ReadAll("/proc/self/mountinfo"));
  const std::string& scratch = spec.scratch_dir;
  RDMASTACK_RETURN_IF_ERROR(MkdirAll(scratch));
  RDMASTACK_RETURN_IF_ERROR(Mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"));
  for (const char* d : {"/upper", "/work", "/root"}) {
    RDMASTACK_RETURN_IF_ERROR(MkdirAll(scratch + d));
  }
  const std::string root = scratch + "/root";
  RDMASTACK_RETURN_IF_ERROR(
      Mount("overlay", root, "overlay", 0,
            "lowerdir=/,upperdir=" + scratch + "/upper,workdir=" + scratch + "/work"));
  RDMASTACK_RETURN_IF_ERROR(MkdirAll(root + kOldRoot));
  if (::syscall(SYS_pivot_root, root.c_str(), (root + kOldRoot).c_str()) != 0) {
    return Errno("pivot_root " + root);
  }
  if (::chdir("/") != 0) return Errno("chdir /");

  RDMASTACK_RETURN_IF_ERROR(MountSystemTrees(host_mounts, own_pid_namespace));
  for (const BindMount& m : spec.mounts) {
    Status s = Bind(kOldRoot + m.source, m.target, m.read_only);
    if (!s.ok()) return s.WithContext("mount " + m.source + " at " + m.target);
  }
  if (::umount2(kOldRoot, MNT_DETACH) != 0) return Errno("detach the host root");
  ::rmdir(kOldRoot);
  RDMASTACK_RETURN_IF_ERROR(MkdirAll(spec.working_dir));
  if (::chdir(spec.working_dir.c_str()) != 0) return Errno("chdir " + spec.working_dir);
  return OkStatus();
}

}  // namespace rdmastack::sim
