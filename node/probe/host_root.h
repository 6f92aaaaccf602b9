#pragma once
// Reads files of a host (or of a fixture tree) below a root directory. Every failure comes back as
// a Status whose message names the root-prefixed path, so a strange sysfs turns into a readable
// Unknown check instead of an exception or a crash.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack::node {

class HostRoot {
 public:
  // sysfs attributes are at most a page; anything larger is refused as malformed.
  static constexpr size_t kAttrLimit = 4096;

  explicit HostRoot(std::string root);

  const std::string& root() const { return root_; }
  bool IsLiveRoot() const { return root_ == "/"; }
  // Host path for a root-relative path ("sys/class/net" -> "/host/sys/class/net").
  std::string Path(std::string_view rel) const;

  // One read of a small attribute file; the trailing newline is stripped. Fails on files larger
  // than `limit`, on non-regular files and on read errors (errno text in the message).
  StatusOr<std::string> ReadAttr(std::string_view rel, size_t limit = kAttrLimit) const;
  // Whole text file up to `limit` bytes (e.g. /proc/modules).
  StatusOr<std::string> ReadText(std::string_view rel, size_t limit) const;
  // Calls `line_fn` for every line of a possibly large file (e.g. /proc/kallsyms) until it
  // returns false or `limit` bytes were read.
  Status ScanLines(std::string_view rel, size_t limit,
                   const std::function<bool(std::string_view)>& line_fn) const;

  // Sorted entry names (without . and ..). NotFound when the directory does not exist.
  StatusOr<std::vector<std::string>> ListDir(std::string_view rel) const;
  bool Exists(std::string_view rel) const;       // follows symlinks
  bool IsDirectory(std::string_view rel) const;  // follows symlinks
  bool IsSymlink(std::string_view rel) const;
  // Target of a symlink, as stored.
  StatusOr<std::string> ReadLink(std::string_view rel) const;
  // Canonical root-relative path: symlinks are followed inside the root (absolute targets are
  // taken relative to the root, ".." stops at the root). ELOOP-style cycles give an error.
  StatusOr<std::string> Resolve(std::string_view rel) const;

 private:
  std::string root_;
};

// Reads a local file given by the user (a flag), path taken as is (relative to the cwd).
StatusOr<std::string> ReadLocalFile(const std::string& path, size_t limit);

// Joins root-relative path pieces with single slashes.
std::string JoinPath(std::string_view a, std::string_view b);

}  // namespace rdmastack::node
