#pragma once
// Facts that sysfs does not have and that need the device itself: active MTU, DC support and the
// dma-buf registration probe through libibverbs, BAR1 total/free through NVML. Behind an
// interface so that fixture trees can supply recorded results and unit tests can fake them.

#include <memory>
#include <string>
#include <vector>

#include "agents/node-agent/probe/facts.h"
#include "operator/base/status.h"

namespace rdmastack::agent {

class DeviceProber {
 public:
  virtual ~DeviceProber() = default;
  // "live", "recorded", "none"; goes into the report so readers know where values came from.
  virtual std::string Source() const = 0;
  // Fills port active_mtu, dc_supported and dmabuf_supported where it can.
  virtual void ProbeRdmaDevice(RdmaDevice* dev, std::vector<ProbeIssue>* issues) = 0;
  // Fills bar1_total_bytes/bar1_free_bytes (NVML) and dma_buf_attr where it can.
  virtual void ProbeGpu(Gpu* gpu, std::vector<ProbeIssue>* issues) = 0;
};

// Leaves everything unknown (fixture tree without recorded results).
std::unique_ptr<DeviceProber> MakeNullDeviceProber();

// Recorded results, one per line ('#' comments):
//   verbs <ibdev> active_mtu <port> <bytes>
//   verbs <ibdev> dmabuf <EBADF|EOPNOTSUPP|EPROTONOSUPPORT|ENOSYS>
//   verbs <ibdev> dc <supported|unsupported|unknown>
//   nvml <bdf> bar1 <total-bytes> <free-bytes>
//   cuda <bdf> dmabuf <0|1>
StatusOr<std::unique_ptr<DeviceProber>> MakeFileDeviceProber(const std::string& path);
StatusOr<std::unique_ptr<DeviceProber>> ParseRecordedProbes(std::string_view text,
                                                            const std::string& source);

// The live machine: dlopen("libibverbs.so.1"), dlopen("libmlx5.so.1") and
// dlopen("libnvidia-ml.so.1") when present; whatever is missing stays unknown with a reason.
std::unique_ptr<DeviceProber> MakeLiveDeviceProber();

// Maps an errno name from the dma-buf probe (ibv_reg_dmabuf_mr with fd=-1) to a verdict, the way
// NCCL reads it: EBADF means the kernel and provider accept dma-buf registrations.
Tristate DmaBufFromErrnoName(std::string_view name);

}  // namespace rdmastack::agent
