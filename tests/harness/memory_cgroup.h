#pragma once
// A memory cgroup for a benchmark's process under test: the limit a container of the chart would
// have (resources.limits.memory), the peak it reached and whether the kernel's OOM killer ran in
// it. cgroup v2 (memory.max, memory.peak, memory.events) where /sys/fs/cgroup is unified, else
// the v1 memory controller (memory.limit_in_bytes, memory.max_usage_in_bytes, memory.oom_control).

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"

namespace rdmastack::testing {

class MemoryCgroup {
 public:
  // A new cgroup `name` under the memory hierarchy's root, limited to `limit_bytes`.
  static StatusOr<std::unique_ptr<MemoryCgroup>> Create(const std::string& name,
                                                        int64_t limit_bytes);
  // Removes the cgroup (its processes must have exited).
  ~MemoryCgroup();

  // Moves `pid` (all its threads) into the cgroup, with what it has already charged (v1).
  Status Add(pid_t pid);
  // The most the cgroup's processes held at once, page cache and kernel memory included.
  StatusOr<int64_t> PeakBytes() const;
  // How many times the OOM killer killed a process of the cgroup.
  StatusOr<int64_t> OomKills() const;
  int64_t limit_bytes() const { return limit_bytes_; }
  const std::string& path() const { return path_; }

 private:
  MemoryCgroup(std::string path, bool v2, int64_t limit)
      : path_(std::move(path)), v2_(v2), limit_bytes_(limit) {}
  std::string path_;
  bool v2_;
  int64_t limit_bytes_;
};

// "512Mi", "1Gi", "800M", "1048576" as a Kubernetes quantity of bytes; InvalidArgument otherwise.
StatusOr<int64_t> ParseMemoryQuantity(const std::string& quantity);

}  // namespace rdmastack::testing
