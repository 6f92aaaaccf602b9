#pragma once
// The executable a container's argv[0] names, looked up in the container's own PATH as a
// container runtime does (not in the caller's environment, as execvp would).

#include <string>
#include <vector>

#include "base/status.h"

namespace rdmastack::sim {

inline constexpr char kDefaultPath[] =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// `env` holds "NAME=value" entries. A name with a '/' is returned unchanged.
StatusOr<std::string> ResolveExecutable(const std::string& name,
                                        const std::vector<std::string>& env);

}  // namespace rdmastack::sim
