#include "node/probe/nvml_library.h"

#include <algorithm>

#include "node/probe/host_root.h"

namespace rdmastack::node {
namespace {

#if defined(__aarch64__)
constexpr char kMultiarch[] = "aarch64-linux-gnu";
#else
constexpr char kMultiarch[] = "x86_64-linux-gnu";
#endif

// A loader cache is tens of KiB; anything near this is not one.
constexpr size_t kLdCacheLimit = 16 << 20;

// Root-relative directories the driver installers use: Debian/Ubuntu packages (multiarch), RHEL
// and SUSE packages (lib64), the .run installer on other distributions (lib), and the container
// toolkit's layout (usr/local/nvidia).
std::vector<std::string> LibraryDirs() {
  const std::string multiarch = kMultiarch;
  return {"usr/lib/" + multiarch,  "usr/lib64", "usr/lib", "lib/" + multiarch, "lib64", "lib",
          "usr/local/nvidia/lib64"};
}

void AddUnique(std::string path, std::vector<std::string>* out) {
  if (std::find(out->begin(), out->end(), path) == out->end()) out->push_back(std::move(path));
}

// The library files below one root, resolved inside it.
void AddFound(const HostRoot& root, std::vector<std::string>* out) {
  std::vector<std::string> rels;
  if (auto cache = root.ReadText("etc/ld.so.cache", kLdCacheLimit); cache.ok()) {
    rels = LdCachePaths(*cache, kNvmlSoname);
  }
  for (const auto& dir : LibraryDirs()) rels.push_back(dir + "/" + kNvmlSoname);
  for (const auto& rel : rels) {
    auto resolved = root.Resolve(rel);
    if (resolved.ok() && !root.IsDirectory(*resolved)) AddUnique(root.Path(*resolved), out);
  }
}

}  // namespace

std::vector<std::string> LdCachePaths(std::string_view cache, std::string_view soname) {
  std::vector<std::string> out;
  const std::string suffix = "/" + std::string(soname);
  size_t start = 0;
  while (start < cache.size()) {
    size_t end = cache.find('\0', start);
    if (end == std::string_view::npos) end = cache.size();
    std::string_view s = cache.substr(start, end - start);
    start = end + 1;
    if (s.size() <= suffix.size() || s.front() != '/' ||
        s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    // Every tail that starts at a slash too: glibc >= 2.32 stores a path that is the tail of
    // another (/lib/x beside /usr/lib/x) only inside the longer one.
    while (s.size() > suffix.size()) {
      AddUnique(std::string(s), &out);
      s.remove_prefix(s.find('/', 1));
    }
  }
  return out;
}

std::vector<std::string> NvmlLibraryCandidates(const std::string& root) {
  std::vector<std::string> out;
  const HostRoot host(root);
  if (!host.IsLiveRoot()) {
    AddFound(host, &out);
    AddFound(HostRoot(host.Path("run/nvidia/driver")), &out);
  }
  out.push_back(kNvmlSoname);
  return out;
}

}  // namespace rdmastack::node
