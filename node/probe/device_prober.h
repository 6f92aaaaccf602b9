#pragma once
// Facts that sysfs does not have and that need the device itself: active MTU, DC support and the
// dma-buf registration probe through libibverbs, BAR1 total/free through NVML. Behind an
// interface so that fixture trees can supply recorded results and unit tests can fake them.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "node/probe/facts.h"

namespace rdmastack::node {

class DeviceProber {
 public:
  virtual ~DeviceProber() = default;
  // "live", "recorded", "none"; goes into the report so readers know where values came from.
  virtual std::string Source() const = 0;
  // Fills port active_mtu, dc_supported, dmabuf_supported and data_direct where it can.
  virtual void ProbeRdmaDevice(RdmaDevice* dev, std::vector<ProbeIssue>* issues) = 0;
  // Called once with every GPU before ProbeGpu, so that one driver session can serve them all.
  virtual void PrepareGpus(const std::vector<Gpu>& /*gpus*/, std::vector<ProbeIssue>* /*issues*/) {}
  // Fills bar1_total_bytes/bar1_free_bytes (NVML) and dma_buf_attr where it can.
  virtual void ProbeGpu(Gpu* gpu, std::vector<ProbeIssue>* issues) = 0;
};

// Leaves everything unknown (fixture tree without recorded results).
std::unique_ptr<DeviceProber> MakeNullDeviceProber();

// Recorded results, one per line ('#' comments):
//   verbs <ibdev> active_mtu <port> <bytes>
//   verbs <ibdev> dmabuf <EBADF|EOPNOTSUPP|EPROTONOSUPPORT|ENOSYS>
//   verbs <ibdev> dc <supported|unsupported|unknown>
//   verbs <ibdev> data_direct </devices/...|ENODEV|errno name>
//   nvml <bdf> bar1 <total-bytes> <free-bytes>
//   cuda <bdf> dmabuf <0|1>
StatusOr<std::unique_ptr<DeviceProber>> MakeFileDeviceProber(const std::string& path);
StatusOr<std::unique_ptr<DeviceProber>> ParseRecordedProbes(std::string_view text,
                                                            const std::string& source);

// What a live probe reused from an earlier one: NVML's answer for the same GPUs.
struct NvmlSampleCache {
  std::vector<std::string> bdfs;
  std::string lines;  // recorded-probe lines
  std::chrono::steady_clock::time_point taken;
};

struct LiveProberOptions {
  // The host root being probed: NVML is the host's, looked for below it (nvml_library.h).
  std::string root = "/";
  // Path of rdmastack-agent: NVML is then queried by `<path> nvml-bar1 --root ROOT BDF...` in a
  // child process instead of being loaded into this one. Empty: load NVML here (one-shot `check`).
  std::string nvml_helper;
  std::chrono::milliseconds nvml_helper_timeout{20'000};
  // Shared between the probers of successive probes; NVML is asked again after nvml_max_age.
  std::shared_ptr<NvmlSampleCache> nvml_cache;
  std::chrono::seconds nvml_max_age{0};
};

// The live machine: dlopen("libibverbs.so.1") and dlopen("libmlx5.so.1") (the image's rdma-core,
// which asks the host's kernel through /dev/infiniband), and the host's libnvidia-ml.so.1 when
// present; whatever is missing stays unknown with a reason.
std::unique_ptr<DeviceProber> MakeLiveDeviceProber(LiveProberOptions options = {});

// Records what mlx5dv_get_data_direct_sysfs_path answered: a path below /sys (data_direct kYes,
// the path kept until ResolveDataDirect checks it), ENODEV (kNo) or another errno name (kUnknown).
void RecordDataDirectAnswer(std::string_view answer, RdmaDevice* dev);

// Maps an errno name from the dma-buf probe (ibv_reg_dmabuf_mr with fd=-1) to a verdict, the way
// NCCL reads it: EBADF means the kernel and provider accept dma-buf registrations.
Tristate DmaBufFromErrnoName(std::string_view name);

}  // namespace rdmastack::node
