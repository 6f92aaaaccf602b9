#pragma once
// Writes a ConfigMap/Secret/projected volume the way the kubelet does, so that a process never
// sees a half-updated set of files: the files live in a timestamped directory, `..data` points at
// the current one, and each top-level name is a symlink through `..data`. An update writes a new
// directory and swaps `..data` with one rename.

#include <map>
#include <string>

#include "base/status.h"

namespace rdmastack::sim {

struct VolumeFile {
  std::string content;
  int mode = 0644;
  friend bool operator==(const VolumeFile&, const VolumeFile&) = default;
};
using VolumePayload = std::map<std::string, VolumeFile>;  // relative path -> file

class AtomicDirWriter {
 public:
  explicit AtomicDirWriter(std::string dir) : dir_(std::move(dir)) {}
  // Returns true when the files changed (false: the payload equals the last one written).
  StatusOr<bool> Write(const VolumePayload& payload);
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  bool written_ = false;
  VolumePayload last_;
  int generation_ = 0;
};

// A relative path without "..", empty or absolute segments (what the API server also enforces).
Status CheckRelativePath(const std::string& path);

}  // namespace rdmastack::sim
