#pragma once
// The one way our node programs write under a host path (the client's install directory, its
// state, the launcher's gateway root and config): a directory opened once as a file descriptor,
// below which every create, link, rename and unlink takes a single plain path component and goes
// through an *at() call with O_NOFOLLOW. So a name that came from a tenant's image (a directory
// entry, a link target, a name read from inside a file) can never reach a path outside the
// directory, and no link is ever followed that this code did not create.
//
// Every file is published through a temporary name unique to the writer (random, not the pid:
// every container's process is PID 1), fsynced, renamed over the name, and the directory is
// fsynced: a reader sees the old or the new file, and a host that loses power never publishes an
// empty one. tests/host_write_test.cc checks that the client and the launcher write nowhere else.

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack {

// Longest accepted name: room below NAME_MAX (255) for the temporary name's prefix.
inline constexpr size_t kMaxPlainNameBytes = 200;
// Names with this prefix are the writers' temporary files; no caller may name one.
inline constexpr std::string_view kHostTempPrefix = ".rdmastack-tmp-";

// OK when `name` is one plain path component: not empty, not "." or "..", no '/', no NUL, no
// control character, at most kMaxPlainNameBytes bytes, not a temporary name. Otherwise
// InvalidArgument whose message shows the name (ShowName) and what is wrong with it.
Status CheckPlainName(std::string_view name);

// `name` printable on one log line or in a condition: control, non-ASCII and backslash bytes as
// \xNN, cut after 64 bytes with the full length given.
std::string ShowName(std::string_view name);

// The mode a copied file gets: 0755 when the source has any execute bit, else 0644. Never
// setuid, setgid, sticky, group- or world-writable.
mode_t DefangedMode(mode_t source_mode);

// What a file costs the disk: its size or its allocated blocks, whichever is more (a sparse file
// is small on disk but large to copy; a preallocated one the other way round).
uint64_t ChargedBytes(const struct stat& st);

// An open file descriptor, closed when it goes.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset();

 private:
  int fd_ = -1;
};

// A regular file opened for reading below a HostDir, with what fstat said of the open file.
struct OpenedFile {
  UniqueFd fd;
  struct stat st {};
};

class HostDir {
 public:
  // Opens the absolute directory `path` one component at a time from "/", each with
  // O_DIRECTORY|O_NOFOLLOW (a component that is a link is refused, not followed); `create` makes
  // missing components (0755, each parent fsynced). Components must be plain names.
  static StatusOr<HostDir> Open(const std::string& path, bool create);

  HostDir(HostDir&&) = default;
  HostDir& operator=(HostDir&&) = default;

  // The child directory `name` (created 0755 when missing and `create`); a link is refused.
  StatusOr<HostDir> OpenChild(std::string_view name, bool create) const;

  const std::string& path() const { return path_; }
  int fd() const { return fd_.get(); }

  // --- reading (nothing is followed, nothing but regular files is opened) ---
  // Entry names, sorted, without "." and ".."; ResourceExhausted past `max_entries`.
  StatusOr<std::vector<std::string>> List(size_t max_entries = 100000) const;
  // lstat of the entry; NotFound when there is none.
  StatusOr<struct stat> Lstat(std::string_view name) const;
  // A link's target, as stored.
  StatusOr<std::string> ReadLink(std::string_view name) const;
  // Opens a regular file with O_NOFOLLOW, after lstat found it regular and before fstat of the
  // open file agrees (same inode): a FIFO, device or link is never opened. FailedPrecondition
  // for anything but a regular file.
  StatusOr<OpenedFile> OpenRegular(std::string_view name) const;
  // Content of a regular file, OutOfRange above `max_bytes`.
  StatusOr<std::string> ReadFile(std::string_view name, size_t max_bytes) const;

  // A file no reader can reach by name, open read-write, for probing what the directory's file
  // system keeps (user xattrs): O_TMPFILE, or where the file system lacks it a temporary name
  // unlinked at once. Gone when the descriptor closes.
  StatusOr<UniqueFd> OpenScratchFile() const;

  // --- writing (each publishes atomically: temporary name, fsync, rename, fsync of the dir) ---
  Status WriteFile(std::string_view name, std::string_view content, mode_t mode = 0644) const;
  // Copies exactly `size` bytes of `source` (read with pread from offset 0); fails when the
  // source ends early or holds more, so no more than `size` bytes are ever written.
  Status CopyFile(std::string_view name, int source, uint64_t size, mode_t mode) const;
  // `name` -> `target`, where the target is itself a plain name: a link only ever names a
  // sibling.
  Status Symlink(std::string_view name, std::string_view target) const;
  // Removes a file or link (never what a link names); false when there was none.
  StatusOr<bool> Remove(std::string_view name) const;
  // Removes `name` and, for a directory, everything below it, links as links; false when there
  // was none.
  StatusOr<bool> RemoveTree(std::string_view name) const;
  // Removes the empty directory `name`; FailedPrecondition when it is not empty or is a mount
  // point (EBUSY: a hostPath mounted exactly there).
  StatusOr<bool> RemoveDir(std::string_view name) const;
  // Removes the temporary files an interrupted writer left (kHostTempPrefix); their names.
  StatusOr<std::vector<std::string>> RemoveTemporaryFiles() const;

 private:
  HostDir(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  std::string Show(std::string_view name) const;
  Status Publish(std::string_view name, const std::string& tmp) const;
  // A new file under a temporary name, filled by `fill`, given `mode`, fsynced and published.
  Status PublishNew(std::string_view name, const char* verb, mode_t mode,
                    const std::function<Status(int)>& fill) const;
  StatusOr<bool> RemoveTreeAt(const std::string& name, int depth) const;

  UniqueFd fd_;
  std::string path_;
};

}  // namespace rdmastack
