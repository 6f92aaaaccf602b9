#pragma once
// Where the NVIDIA management library of a host is. In the DaemonSet the agent's image has no
// NVIDIA userspace, and NVML must come from the same driver release as the host's kernel module
// (NVML refuses a mismatch), so the host's own copy is loaded from below the host root (/host):
// the paths the host's loader cache names, then the usual library directories; then the same
// below run/nvidia/driver, where the GPU operator's driver container keeps the userspace.

#include <string>
#include <string_view>
#include <vector>

namespace rdmastack::node {

inline constexpr char kNvmlSoname[] = "libnvidia-ml.so.1";

// Paths to dlopen, best first. Root "/" gives only the bare soname: the loader's own search,
// which also finds a copy the NVIDIA container toolkit put into the container. Another root gives
// the files found below it, each resolved inside its root (a host's absolute symlinks point into
// the host, not into this container), then the bare soname.
std::vector<std::string> NvmlLibraryCandidates(const std::string& root);

// Absolute paths ending in "/<soname>" in the bytes of an ld.so.cache, in file order, without
// duplicates, each followed by its tails that start at a slash. Both cache formats keep every
// library's full path as a NUL-terminated string (or as the tail of a longer one), so the strings
// are read and the binary entries (whose layout changed between glibc releases) are not; a tail
// that is no file is dropped by the caller, a path of another architecture by dlopen.
std::vector<std::string> LdCachePaths(std::string_view cache, std::string_view soname);

}  // namespace rdmastack::node
