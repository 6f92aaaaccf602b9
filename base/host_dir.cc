#include "base/host_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <functional>

namespace rdmastack {
namespace {

// Deep enough for any tree we make (lib/, log/); a deeper one was not made by us.
constexpr int kMaxRemoveDepth = 16;

std::string Errno() {
  return std::strerror(errno);
}

// ENOENT -> NotFound, EACCES/EPERM/EROFS -> PermissionDenied, the rest Unavailable.
Status ErrnoStatus(const std::string& what) {
  const int e = errno;
  const std::string msg = what + ": " + std::strerror(e);
  if (e == ENOENT) return NotFoundError(msg);
  if (e == EACCES || e == EPERM || e == EROFS) return PermissionDeniedError(msg);
  if (e == ENOSPC || e == EDQUOT) return ResourceExhaustedError(msg);
  return UnavailableError(msg);
}

StatusOr<std::string> TempName() {
  unsigned char bytes[8];
  size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return UnavailableError("getrandom: " + Errno());
    got += static_cast<size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(kHostTempPrefix);
  for (unsigned char b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

Status WriteAll(int fd, const char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoStatus("write");
    done += static_cast<size_t>(n);
  }
  return OkStatus();
}

Status Fsync(int fd, const std::string& what) {
  if (::fsync(fd) != 0) return ErrnoStatus("fsync " + what);
  return OkStatus();
}

std::string JoinPath(const std::string& dir, std::string_view name) {
  return (dir == "/" ? "" : dir) + "/" + ShowName(name);
}

// Opens the directory `name` below `dir` without following a link.
int OpenDirAt(int dir, const char* name) {
  return ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

}  // namespace

Status CheckPlainName(std::string_view name) {
  auto refuse = [&](const std::string& why) {
    return InvalidArgumentError("'" + ShowName(name) + "' is not a plain file name: " + why);
  };
  if (name.empty()) return refuse("it is empty");
  if (name == "." || name == "..") return refuse("it names a directory itself or its parent");
  if (name.size() > kMaxPlainNameBytes) {
    return refuse("it is " + std::to_string(name.size()) + " bytes long (at most " +
                  std::to_string(kMaxPlainNameBytes) + ")");
  }
  for (char c : name) {
    if (c == '/') return refuse("it contains '/'");
    if (c == '\0') return refuse("it contains a NUL byte");
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return refuse("it contains a control character");
  }
  if (name.substr(0, kHostTempPrefix.size()) == kHostTempPrefix) {
    return refuse("names starting with " + std::string(kHostTempPrefix) +
                  " are reserved for temporary files");
  }
  return OkStatus();
}

std::string ShowName(std::string_view name) {
  static constexpr char kHex[] = "0123456789abcdef";
  constexpr size_t kShown = 64;
  std::string out;
  for (size_t i = 0; i < name.size() && i < kShown; ++i) {
    const auto u = static_cast<unsigned char>(name[i]);
    if (u < 0x20 || u >= 0x7f || u == '\\' || u == '\'') {
      out += "\\x";
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    } else {
      out.push_back(static_cast<char>(u));
    }
  }
  if (name.size() > kShown) out += "...(" + std::to_string(name.size()) + " bytes)";
  return out;
}

mode_t DefangedMode(mode_t source_mode) {
  return (source_mode & 0111) != 0 ? 0755 : 0644;
}

uint64_t ChargedBytes(const struct stat& st) {
  const uint64_t size = st.st_size > 0 ? static_cast<uint64_t>(st.st_size) : 0;
  const uint64_t blocks = st.st_blocks > 0 ? static_cast<uint64_t>(st.st_blocks) * 512 : 0;
  return std::max(size, blocks);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = o.release();
  }
  return *this;
}

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

StatusOr<HostDir> HostDir::Open(const std::string& path, bool create) {
  if (path.empty() || path.front() != '/') {
    return InvalidArgumentError("'" + ShowName(path) + "' is not an absolute directory path");
  }
  UniqueFd fd(::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoStatus("open /");
  HostDir dir(std::move(fd), "/");
  size_t at = 0;
  while (at < path.size()) {
    const size_t slash = path.find('/', at);
    const size_t end = slash == std::string::npos ? path.size() : slash;
    const std::string_view component = std::string_view(path).substr(at, end - at);
    at = end + 1;
    if (component.empty()) continue;
    if (Status s = CheckPlainName(component); !s.ok()) return s.WithContext("path " + path);
    RDMASTACK_ASSIGN_OR_RETURN(dir, dir.OpenChild(component, create));
  }
  return dir;
}

std::string HostDir::Show(std::string_view name) const {
  return JoinPath(path_, name);
}

StatusOr<HostDir> HostDir::OpenChild(std::string_view name, bool create) const {
  RDMASTACK_RETURN_IF_ERROR(CheckPlainName(name));
  const std::string n(name);
  const std::string shown = Show(name);
  UniqueFd child(OpenDirAt(fd(), n.c_str()));
  if (child.get() < 0 && errno == ENOENT && create) {
    if (::mkdirat(fd(), n.c_str(), 0755) != 0 && errno != EEXIST) {
      return ErrnoStatus("cannot create " + shown);
    }
    RDMASTACK_RETURN_IF_ERROR(Fsync(fd(), path_));
    child = UniqueFd(OpenDirAt(fd(), n.c_str()));
  }
  if (child.get() < 0) {
    if (errno == ELOOP || errno == ENOTDIR) {
      return FailedPreconditionError(shown +
                                     " is a symbolic link or not a directory; it is not followed");
    }
    return ErrnoStatus("cannot open " + shown);
  }
  return HostDir(std::move(child), path_ == "/" ? "/" + n : path_ + "/" + n);
}

StatusOr<std::vector<std::string>> HostDir::List(size_t max_entries) const {
  const int copy = ::openat(fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (copy < 0) return ErrnoStatus("cannot list " + path_);
  DIR* d = ::fdopendir(copy);
  if (d == nullptr) {
    ::close(copy);
    return ErrnoStatus("cannot list " + path_);
  }
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view n = e->d_name;
    if (n == "." || n == "..") continue;
    if (names.size() == max_entries) {
      ::closedir(d);
      return ResourceExhaustedError(path_ + " holds more than " + std::to_string(max_entries) +
                                    " entries");
    }
    names.emplace_back(n);
  }
  const int err = errno;
  ::closedir(d);
  if (err != 0) {
    errno = err;
    return ErrnoStatus("cannot list " + path_);
  }
  std::sort(names.begin(), names.end());
  return names;
}

StatusOr<struct stat> HostDir::Lstat(std::string_view name) const {
  RDMASTACK_RETURN_IF_ERROR(CheckPlainName(name));
  struct stat st {};
  if (::fstatat(fd(), std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return ErrnoStatus("cannot stat " + Show(name));
  }
  return st;
}

StatusOr<std::string> HostDir::ReadLink(std::string_view name) const {
  RDMASTACK_RETURN_IF_ERROR(CheckPlainName(name));
  char buf[PATH_MAX + 1];
  const ssize_t n = ::readlinkat(fd(), std::string(name).c_str(), buf, sizeof buf);
  if (n < 0) return ErrnoStatus("cannot read the link " + Show(name));
  if (static_cast<size_t>(n) >= sizeof buf) {
    return OutOfRangeError("the link " + Show(name) + " is longer than PATH_MAX");
  }
  return std::string(buf, static_cast<size_t>(n));
}

StatusOr<OpenedFile> HostDir::OpenRegular(std::string_view name) const {
  RDMASTACK_ASSIGN_OR_RETURN(struct stat before, Lstat(name));
  if (!S_ISREG(before.st_mode)) {
    return FailedPreconditionError(Show(name) + " is not a regular file");
  }
  OpenedFile f;
  f.fd = UniqueFd(::openat(fd(), std::string(name).c_str(),
                           O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (f.fd.get() < 0) return ErrnoStatus("cannot open " + Show(name));
  if (::fstat(f.fd.get(), &f.st) != 0) return ErrnoStatus("cannot stat " + Show(name));
  if (!S_ISREG(f.st.st_mode) || f.st.st_ino != before.st_ino || f.st.st_dev != before.st_dev) {
    return FailedPreconditionError(Show(name) + " changed while it was opened");
  }
  return f;
}

StatusOr<std::string> HostDir::ReadFile(std::string_view name, size_t max_bytes) const {
  RDMASTACK_ASSIGN_OR_RETURN(OpenedFile f, OpenRegular(name));
  if (static_cast<uint64_t>(f.st.st_size) > max_bytes) {
    return OutOfRangeError(Show(name) + " is larger than " + std::to_string(max_bytes) + " bytes");
  }
  std::string out;
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(f.fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("cannot read " + Show(name));
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max_bytes) {
      return OutOfRangeError(Show(name) + " is larger than " + std::to_string(max_bytes) +
                             " bytes");
    }
  }
  return out;
}

Status HostDir::Publish(std::string_view name, const std::string& tmp) const {
  if (::renameat(fd(), tmp.c_str(), fd(), std::string(name).c_str()) != 0) {
    Status s = ErrnoStatus("cannot rename over " + Show(name));
    ::unlinkat(fd(), tmp.c_str(), 0);
    return s;
  }
  return Fsync(fd(), path_);
}

Status HostDir::PublishNew(std::string_view name, const char* verb, mode_t mode,
                           const std::function<Status(int)>& fill) const {
  RDMASTACK_RETURN_IF_ERROR(CheckPlainName(name));
  RDMASTACK_ASSIGN_OR_RETURN(std::string tmp, TempName());
  UniqueFd out(
      ::openat(fd(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (out.get() < 0) return ErrnoStatus(std::string("cannot ") + verb + " " + Show(name));
  Status s = fill(out.get());
  if (s.ok() && ::fchmod(out.get(), mode & 0777) != 0) s = ErrnoStatus("chmod");
  if (s.ok()) s = Fsync(out.get(), Show(name));
  out.reset();
  if (!s.ok()) {
    ::unlinkat(fd(), tmp.c_str(), 0);
    return Status(s.code(), std::string("cannot ") + verb + " " + Show(name) + ": " + s.message());
  }
  return Publish(name, tmp);
}

StatusOr<UniqueFd> HostDir::OpenScratchFile() const {
  UniqueFd fd(::openat(fd_.get(), ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (fd.get() >= 0) return fd;
  RDMASTACK_ASSIGN_OR_RETURN(std::string tmp, TempName());
  fd = UniqueFd(
      ::openat(fd_.get(), tmp.c_str(), O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.get() < 0) return ErrnoStatus("cannot make a scratch file in " + path_);
  (void)::unlinkat(fd_.get(), tmp.c_str(), 0);
  return fd;
}

Status HostDir::WriteFile(std::string_view name, std::string_view content, mode_t mode) const {
  return PublishNew(name, "write", mode,
                    [&](int out) { return WriteAll(out, content.data(), content.size()); });
}

Status HostDir::CopyFile(std::string_view name, int source, uint64_t size, mode_t mode) const {
  return PublishNew(name, "copy to", mode, [&](int out) {
    char buf[65536];
    uint64_t done = 0;
    // One byte past `size` is read too: a source that grew is refused, not cut.
    while (done <= size) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof buf, size - done + 1));
      const ssize_t n = ::pread(source, buf, want, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return ErrnoStatus("read the source");
      if (n == 0) {
        if (done < size) {
          return DataLossError("the source ended after " + std::to_string(done) + " of " +
                               std::to_string(size) + " bytes");
        }
        return OkStatus();
      }
      if (done + static_cast<uint64_t>(n) > size) {
        return FailedPreconditionError("the source holds more than the " + std::to_string(size) +
                                       " bytes it had when checked");
      }
      RDMASTACK_RETURN_IF_ERROR(WriteAll(out, buf, static_cast<size_t>(n)));
      done += static_cast<uint64_t>(n);
    }
    return OkStatus();
  });
}

Status HostDir::Symlink(std::string_view name, std::string_view target) const {
  RDMASTACK_RETURN_IF_ERROR(CheckPlainName(name));
  if (Status s = CheckPlainName(target); !s.ok()) {
    return s.WithContext("link " + Show(name) + " target");
  }
  RDMASTACK_ASSIGN_OR_RETURN(std::string tmp, TempName());
  if (::symlinkat(std::string(target).c_str(), fd(), tmp.c_str()) != 0) {
    return ErrnoStatus("cannot link " + Show(name) + " -> " + ShowName(target));
  }
  return Publish(name, tmp);
}

StatusOr<bool> HostDir::Remove(std::string_view name) const {
  RDMASTACK_RETURN_IF_ERROR(CheckPlainName(name));
  if (::unlinkat(fd(), std::string(name).c_str(), 0) != 0) {
    if (errno == ENOENT) return false;
    return ErrnoStatus("cannot remove " + Show(name));
  }
  return true;
}

StatusOr<bool> HostDir::RemoveTree(std::string_view name) const {
  RDMASTACK_RETURN_IF_ERROR(CheckPlainName(name));
  return RemoveTreeAt(std::string(name), 0);
}

// `name` is checked or came from this directory's own listing (no '/', not "." or "..").
StatusOr<bool> HostDir::RemoveTreeAt(const std::string& name, int depth) const {
  struct stat st {};
  if (::fstatat(fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return false;
    return ErrnoStatus("cannot stat " + Show(name));
  }
  if (S_ISDIR(st.st_mode)) {
    if (depth >= kMaxRemoveDepth) {
      return FailedPreconditionError(Show(name) + " is nested more than " +
                                     std::to_string(kMaxRemoveDepth) + " levels deep");
    }
    UniqueFd child(OpenDirAt(fd(), name.c_str()));
    if (child.get() < 0) return ErrnoStatus("cannot open " + Show(name));
    HostDir sub(std::move(child), path_ == "/" ? "/" + name : path_ + "/" + name);
    RDMASTACK_ASSIGN_OR_RETURN(std::vector<std::string> entries, sub.List());
    for (const std::string& e : entries) {
      RDMASTACK_RETURN_IF_ERROR(sub.RemoveTreeAt(e, depth + 1).status());
    }
  }
  if (::unlinkat(fd(), name.c_str(), S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) != 0) {
    if (errno == ENOENT) return false;
    return ErrnoStatus("cannot remove " + Show(name));
  }
  return true;
}

StatusOr<bool> HostDir::RemoveDir(std::string_view name) const {
  RDMASTACK_RETURN_IF_ERROR(CheckPlainName(name));
  if (::unlinkat(fd(), std::string(name).c_str(), AT_REMOVEDIR) != 0) {
    if (errno == ENOENT) return false;
    if (errno == ENOTEMPTY || errno == EEXIST || errno == EBUSY) {
      return FailedPreconditionError("cannot remove " + Show(name) + ": " + Errno());
    }
    return ErrnoStatus("cannot remove " + Show(name));
  }
  return true;
}

StatusOr<std::vector<std::string>> HostDir::RemoveTemporaryFiles() const {
  RDMASTACK_ASSIGN_OR_RETURN(std::vector<std::string> names, List());
  std::vector<std::string> removed;
  for (const std::string& n : names) {
    if (n.compare(0, kHostTempPrefix.size(), kHostTempPrefix) != 0) continue;
    RDMASTACK_ASSIGN_OR_RETURN(bool gone, RemoveTreeAt(n, 0));
    if (gone) removed.push_back(n);
  }
  return removed;
}

}  // namespace rdmastack
