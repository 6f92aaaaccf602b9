#include "node/probe/host_root.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>

#include "node/probe/parsers.h"

namespace rdmastack::node {
namespace {

constexpr int kMaxSymlinkHops = 40;  // same bound as the kernel's MAXSYMLINKS

std::string ErrnoText(int err) {
  return std::strerror(err);
}

class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::vector<std::string> SplitComponents(std::string_view path) {
  const auto parts = SplitNonEmpty(path, '/');
  return {parts.begin(), parts.end()};
}

std::string JoinComponents(const std::vector<std::string>& comps) {
  std::string out;
  for (const auto& c : comps) {
    if (!out.empty()) out += '/';
    out += c;
  }
  return out;
}

}  // namespace

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string out(a);
  if (out.back() != '/') out += '/';
  out += b.front() == '/' ? b.substr(1) : b;
  return out;
}

HostRoot::HostRoot(std::string root) : root_(std::move(root)) {
  if (root_.empty()) root_ = "/";
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string HostRoot::Path(std::string_view rel) const {
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  if (root_ == "/") return "/" + std::string(rel);
  return rel.empty() ? root_ : root_ + "/" + std::string(rel);
}

namespace {

// Opens a regular file for reading without blocking on FIFOs.
StatusOr<int> OpenRegular(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return NotFoundError(path + ": not found");
    return UnavailableError(path + ": " + ErrnoText(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return FailedPreconditionError(path + ": not a regular file");
  }
  return fd;
}

// Reads up to limit+1 bytes so that an oversized file is detected rather than silently cut.
StatusOr<std::string> ReadBounded(const std::string& path, size_t limit, bool single_read) {
  RDMASTACK_ASSIGN_OR_RETURN(int raw_fd, OpenRegular(path));
  ScopedFd fd(raw_fd);
  std::string out;
  std::array<char, 8192> buf{};
  while (out.size() <= limit) {
    size_t want = std::min(buf.size(), limit + 1 - out.size());
    ssize_t n = ::read(fd.get(), buf.data(), want);
    if (n < 0) {
      if (errno == EINTR) continue;
      return UnavailableError(path + ": read failed: " + ErrnoText(errno));
    }
    if (n == 0) break;
    out.append(buf.data(), static_cast<size_t>(n));
    // sysfs renders an attribute in one read; a second read only returns EOF.
    if (single_read && static_cast<size_t>(n) < want) break;
  }
  if (out.size() > limit) {
    return OutOfRangeError(path + ": larger than " + std::to_string(limit) + " bytes");
  }
  return out;
}

}  // namespace

StatusOr<std::string> HostRoot::ReadAttr(std::string_view rel, size_t limit) const {
  RDMASTACK_ASSIGN_OR_RETURN(std::string text, ReadBounded(Path(rel), limit, /*single_read=*/true));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

StatusOr<std::string> ReadLocalFile(const std::string& path, size_t limit) {
  return ReadBounded(path, limit, /*single_read=*/false);
}

StatusOr<std::string> HostRoot::ReadText(std::string_view rel, size_t limit) const {
  return ReadBounded(Path(rel), limit, /*single_read=*/false);
}

Status HostRoot::ScanLines(std::string_view rel, size_t limit,
                           const std::function<bool(std::string_view)>& line_fn) const {
  const std::string path = Path(rel);
  RDMASTACK_ASSIGN_OR_RETURN(int raw_fd, OpenRegular(path));
  ScopedFd fd(raw_fd);
  std::string pending;
  std::array<char, 65536> buf{};
  size_t total = 0;
  while (total < limit) {
    ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return UnavailableError(path + ": read failed: " + ErrnoText(errno));
    }
    if (n == 0) break;
    total += static_cast<size_t>(n);
    pending.append(buf.data(), static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n', start)) {
      if (!line_fn(std::string_view(pending).substr(start, nl - start))) return OkStatus();
      start = nl + 1;
    }
    pending.erase(0, start);
  }
  if (!pending.empty()) line_fn(pending);
  if (total >= limit) {
    return OutOfRangeError(path + ": stopped after " + std::to_string(limit) + " bytes");
  }
  return OkStatus();
}

StatusOr<std::vector<std::string>> HostRoot::ListDir(std::string_view rel) const {
  const std::string path = Path(rel);
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(path.c_str()), &::closedir);
  if (!dir) {
    int err = errno;
    if (err == ENOENT) return NotFoundError(path + ": not found");
    return UnavailableError(path + ": " + ErrnoText(err));
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(dir.get())) {
    std::string_view name(e->d_name);
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
    if (names.size() > 100000) return OutOfRangeError(path + ": more than 100000 entries");
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool HostRoot::Exists(std::string_view rel) const {
  struct stat st {};
  return ::stat(Path(rel).c_str(), &st) == 0;
}

bool HostRoot::IsDirectory(std::string_view rel) const {
  struct stat st {};
  return ::stat(Path(rel).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool HostRoot::IsSymlink(std::string_view rel) const {
  struct stat st {};
  return ::lstat(Path(rel).c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

StatusOr<std::string> HostRoot::ReadLink(std::string_view rel) const {
  const std::string path = Path(rel);
  std::array<char, 4096> buf{};
  ssize_t n = ::readlink(path.c_str(), buf.data(), buf.size() - 1);
  if (n < 0) {
    int err = errno;
    if (err == ENOENT) return NotFoundError(path + ": not found");
    return UnavailableError(path + ": not a readable symlink: " + ErrnoText(err));
  }
  return std::string(buf.data(), static_cast<size_t>(n));
}

StatusOr<std::string> HostRoot::Resolve(std::string_view rel) const {
  std::vector<std::string> done;                         // resolved components so far
  std::vector<std::string> todo = SplitComponents(rel);  // reversed work list
  std::reverse(todo.begin(), todo.end());
  int hops = 0;
  while (!todo.empty()) {
    std::string comp = std::move(todo.back());
    todo.pop_back();
    if (comp == ".") continue;
    if (comp == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    done.push_back(comp);
    const std::string cur = JoinComponents(done);
    if (!IsSymlink(cur)) continue;
    if (++hops > kMaxSymlinkHops) {
      return FailedPreconditionError(Path(rel) + ": too many levels of symbolic links");
    }
    RDMASTACK_ASSIGN_OR_RETURN(std::string target, ReadLink(cur));
    done.pop_back();
    if (!target.empty() && target.front() == '/') done.clear();
    std::vector<std::string> parts = SplitComponents(target);
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.push_back(*it);
  }
  const std::string out = JoinComponents(done);
  if (!Exists(out)) return NotFoundError(Path(rel) + ": resolves to missing " + Path(out));
  return out;
}

}  // namespace rdmastack::node
