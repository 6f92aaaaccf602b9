#include "node/probe/nvml_query.h"

#include <cstdio>
#include <optional>

#include "node/probe/dl_library.h"
#include "node/probe/nvml_library.h"

namespace rdmastack::node {
namespace {

// The documented C ABI of the NVML calls used.
using NvmlDevice = struct NvmlDeviceOpaque*;
struct NvmlBar1Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

}  // namespace

std::vector<NvmlBar1> QueryNvmlBar1(const std::vector<std::string>& bdfs, const std::string& root,
                                    std::vector<ProbeIssue>* issues) {
  std::vector<NvmlBar1> out;
  std::optional<DlLibrary> nvml;
  std::string first_error, path;
  for (const auto& candidate : NvmlLibraryCandidates(root)) {
    nvml.emplace(candidate.c_str());
    path = candidate;
    if (nvml->ok()) break;
    if (first_error.empty()) first_error = nvml->error();
    nvml.reset();
  }
  if (!nvml) {
    // There are NVIDIA GPUs (the caller asks only then) but no driver userspace: BAR1 total
    // comes from sysfs, and free stays unknown.
    const std::string where = root == "/" ? "on the loader's path" : "below " + root;
    issues->push_back({"probes", kNvmlSoname,
                       "no loadable " + std::string(kNvmlSoname) + " " + where + " (" +
                           first_error + "); BAR1 free is unknown"});
    return out;
  }
  auto init = nvml->Get<int (*)()>("nvmlInit_v2");
  auto shutdown = nvml->Get<int (*)()>("nvmlShutdown");
  auto by_bus = nvml->Get<int (*)(const char*, NvmlDevice*)>("nvmlDeviceGetHandleByPciBusId_v2");
  auto bar1 = nvml->Get<int (*)(NvmlDevice, NvmlBar1Memory*)>("nvmlDeviceGetBAR1MemoryInfo");
  if (!init || !shutdown || !by_bus || !bar1) {
    issues->push_back({"probes", path, "NVML lacks the BAR1 memory calls"});
    return out;
  }
  if (int rc = init(); rc != 0) {
    issues->push_back({"probes", path, "nvmlInit_v2 returned " + std::to_string(rc)});
    return out;
  }
  for (const auto& bdf : bdfs) {
    // NVML wants an 8-hex-digit domain: 0000:1a:00.0 -> 00000000:1a:00.0
    const std::string bus = "0000" + bdf;
    NvmlDevice handle = nullptr;
    NvmlBar1Memory mem{};
    if (by_bus(bus.c_str(), &handle) == 0 && bar1(handle, &mem) == 0 && mem.total > 0) {
      out.push_back({bdf, static_cast<int64_t>(mem.total), static_cast<int64_t>(mem.free)});
    }
  }
  shutdown();
  return out;
}

std::string RecordedNvmlLines(const std::vector<NvmlBar1>& results) {
  std::string out;
  for (const auto& r : results) {
    out +=
        "nvml " + r.bdf + " bar1 " + std::to_string(r.total) + " " + std::to_string(r.free) + "\n";
  }
  return out;
}

std::vector<std::string> NvmlHelperArgs(const std::string& root,
                                        const std::vector<std::string>& bdfs) {
  std::vector<std::string> args = {"nvml-bar1", "--root", root};
  args.insert(args.end(), bdfs.begin(), bdfs.end());
  return args;
}

int RunNvmlBar1Command(const std::vector<std::string>& args) {
  std::string root = "/";
  auto first = args.begin();
  if (first != args.end() && *first == "--root") {
    if (++first == args.end() || first->empty()) {
      std::fputs("error: nvml-bar1: --root needs a directory\n", stderr);
      return 2;
    }
    root = *first++;
  }
  std::vector<ProbeIssue> issues;
  const auto results = QueryNvmlBar1({first, args.end()}, root, &issues);
  std::fputs(RecordedNvmlLines(results).c_str(), stdout);
  for (const auto& issue : issues) std::fprintf(stderr, "%s\n", issue.message.c_str());
  return 0;
}

}  // namespace rdmastack::node
