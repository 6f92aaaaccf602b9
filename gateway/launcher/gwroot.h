#pragma once
// The posix backend root. A template so one DaemonSet can give each node its own directory on a
// shared file system (e.g. /lustre/vol0/kvcache-s3-{node}).

#include <string>

#include "base/status.h"

namespace rdmastack::gateway {

inline constexpr std::string_view kNodePlaceholder = "{node}";

// Replaces every {node}; any other {...} is an error, as is a relative result.
StatusOr<std::string> ExpandGwrootTemplate(const std::string& tmpl, const std::string& node_name);

// The directory must exist (or be created when `create`) and be a directory.
Status EnsureGwroot(const std::string& path, bool create);

// The backend is mounted: `gwroot` (or, before it is created, its nearest existing parent) lies
// on another file system than `system_dir`, a directory on the node's system disk. Checked
// before the root is created, so an unmounted backend gets no directory on the root disk.
Status CheckMountedApartFrom(const std::string& gwroot, const std::string& system_dir);

}  // namespace rdmastack::gateway
