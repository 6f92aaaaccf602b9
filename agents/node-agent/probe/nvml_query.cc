#include "agents/node-agent/probe/nvml_query.h"

#include "agents/node-agent/probe/dl_library.h"

namespace rdmastack::agent {
namespace {

// The documented C ABI of the NVML calls used.
using NvmlDevice = struct NvmlDeviceOpaque*;
struct NvmlBar1Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

}  // namespace

std::vector<NvmlBar1> QueryNvmlBar1(const std::vector<std::string>& bdfs,
                                    std::vector<ProbeIssue>* issues) {
  std::vector<NvmlBar1> out;
  DlLibrary nvml("libnvidia-ml.so.1");
  if (!nvml.ok()) return out;  // no NVIDIA driver userspace: BAR1 comes from sysfs only
  auto init = nvml.Get<int (*)()>("nvmlInit_v2");
  auto shutdown = nvml.Get<int (*)()>("nvmlShutdown");
  auto by_bus = nvml.Get<int (*)(const char*, NvmlDevice*)>("nvmlDeviceGetHandleByPciBusId_v2");
  auto bar1 = nvml.Get<int (*)(NvmlDevice, NvmlBar1Memory*)>("nvmlDeviceGetBAR1MemoryInfo");
  if (!init || !shutdown || !by_bus || !bar1) {
    issues->push_back({"probes", "libnvidia-ml.so.1", "NVML lacks the BAR1 memory calls"});
    return out;
  }
  if (int rc = init(); rc != 0) {
    issues->push_back(
        {"probes", "libnvidia-ml.so.1", "nvmlInit_v2 returned " + std::to_string(rc)});
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

}  // namespace rdmastack::agent
