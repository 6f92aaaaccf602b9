// A stand-in for the host's libnvidia-ml.so.1 (the C ABI of the four calls the agent makes), so
// that tests can put an NVML below a fake host root and see the agent load that one, as it loads
// the host's from /host in the DaemonSet. One GPU, 0000:00:06.0, with recognisable BAR1 numbers.
#include <cstring>

namespace {

struct Bar1Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

int g_device = 0;  // its address is the one device handle

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int nvmlInit_v2() {
  return 0;
}

__attribute__((visibility("default"))) int nvmlShutdown() {
  return 0;
}

__attribute__((visibility("default"))) int nvmlDeviceGetHandleByPciBusId_v2(const char* bus,
                                                                            void** device) {
  if (std::strcmp(bus, "00000000:00:06.0") != 0) return 6;  // NVML_ERROR_NOT_FOUND
  *device = &g_device;
  return 0;
}

__attribute__((visibility("default"))) int nvmlDeviceGetBAR1MemoryInfo(void* device,
                                                                       Bar1Memory* memory) {
  if (device != &g_device) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  memory->total = 274877906944ULL;    // 256 GiB, an H200's
  memory->free = 274877906944ULL - 7 * 1048576ULL;
  memory->used = 7 * 1048576ULL;
  return 0;
}

}  // extern "C"
