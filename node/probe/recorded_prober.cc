// DeviceProber implementations without hardware: nothing, or results recorded in a file.
#include <map>
#include <utility>

#include "node/probe/device_prober.h"
#include "node/probe/host_root.h"
#include "node/probe/parsers.h"

namespace rdmastack::node {
namespace {

class NullDeviceProber final : public DeviceProber {
 public:
  std::string Source() const override { return "none"; }
  void ProbeRdmaDevice(RdmaDevice* dev, std::vector<ProbeIssue>*) override {
    dev->dmabuf_detail = "not probed";
  }
  void ProbeGpu(Gpu*, std::vector<ProbeIssue>*) override {}
};

struct RecordedDevice {
  std::map<int, int> active_mtu;  // port -> bytes
  Tristate dc = Tristate::kUnknown;
  std::string dmabuf_errno;
  std::string data_direct;  // as mlx5dv_get_data_direct_sysfs_path answered; "" not recorded
};
struct RecordedGpu {
  int64_t bar1_total = 0;
  int64_t bar1_free = -1;
  Tristate dmabuf = Tristate::kUnknown;
};

class RecordedDeviceProber final : public DeviceProber {
 public:
  RecordedDeviceProber(std::string source, std::map<std::string, RecordedDevice> devices,
                       std::map<std::string, RecordedGpu> gpus)
      : source_(std::move(source)), devices_(std::move(devices)), gpus_(std::move(gpus)) {}

  std::string Source() const override { return source_; }

  void ProbeRdmaDevice(RdmaDevice* dev, std::vector<ProbeIssue>*) override {
    auto it = devices_.find(dev->name);
    if (it == devices_.end()) {
      dev->dmabuf_detail = "not recorded";
      return;
    }
    for (auto& p : dev->ports) {
      if (auto m = it->second.active_mtu.find(p.number); m != it->second.active_mtu.end()) {
        p.active_mtu = m->second;
        p.active_mtu_source = "verbs";
      }
    }
    dev->dc_supported = it->second.dc;
    if (!it->second.data_direct.empty()) RecordDataDirectAnswer(it->second.data_direct, dev);
    dev->dmabuf_detail = it->second.dmabuf_errno.empty() ? "not recorded" : it->second.dmabuf_errno;
    dev->dmabuf_supported = DmaBufFromErrnoName(it->second.dmabuf_errno);
  }

  void ProbeGpu(Gpu* gpu, std::vector<ProbeIssue>*) override {
    auto it = gpus_.find(gpu->pci_address);
    if (it == gpus_.end()) return;
    if (it->second.bar1_total > 0) {
      gpu->bar1_total_bytes = it->second.bar1_total;
      gpu->bar1_free_bytes = it->second.bar1_free;
      gpu->bar1_source = "nvml";
    }
    gpu->dma_buf_attr = it->second.dmabuf;
  }

 private:
  std::string source_;
  std::map<std::string, RecordedDevice> devices_;
  std::map<std::string, RecordedGpu> gpus_;
};

std::vector<std::string> Fields(std::string_view line) {
  const std::vector<std::string_view> words = SplitWhitespace(line);
  return {words.begin(), words.end()};
}

Status ParseLine(const std::vector<std::string>& f, std::map<std::string, RecordedDevice>* devices,
                 std::map<std::string, RecordedGpu>* gpus) {
  if (f.size() < 4) return InvalidArgumentError("want '<verbs|nvml|cuda> <name> <key> <value...>'");
  const std::string& kind = f[0];
  const std::string& key = f[2];
  if (kind == "verbs" && key == "active_mtu" && f.size() == 5) {
    RDMASTACK_ASSIGN_OR_RETURN(int64_t port, ParseDecimal(f[3]));
    RDMASTACK_ASSIGN_OR_RETURN(int64_t mtu, ParseDecimal(f[4]));
    if (port < 1 || port > 255 || mtu < 0 || mtu > 65536)
      return InvalidArgumentError("out of range");
    (*devices)[f[1]].active_mtu[static_cast<int>(port)] = static_cast<int>(mtu);
    return OkStatus();
  }
  if (kind == "verbs" && key == "dmabuf" && f.size() == 4) {
    (*devices)[f[1]].dmabuf_errno = f[3];
    return OkStatus();
  }
  if (kind == "verbs" && key == "dc" && f.size() == 4) {
    Tristate t = f[3] == "supported"     ? Tristate::kYes
                 : f[3] == "unsupported" ? Tristate::kNo
                 : f[3] == "unknown"     ? Tristate::kUnknown
                                         : static_cast<Tristate>(-1);
    if (static_cast<int>(t) < 0)
      return InvalidArgumentError("dc wants supported|unsupported|unknown");
    (*devices)[f[1]].dc = t;
    return OkStatus();
  }
  if (kind == "verbs" && key == "data_direct" && f.size() == 4) {
    (*devices)[f[1]].data_direct = f[3];
    return OkStatus();
  }
  if (kind == "nvml" && key == "bar1" && f.size() == 5) {
    RDMASTACK_ASSIGN_OR_RETURN(int64_t total, ParseDecimal(f[3]));
    RDMASTACK_ASSIGN_OR_RETURN(int64_t free, ParseDecimal(f[4]));
    if (total <= 0 || free < 0 || free > total)
      return InvalidArgumentError("bar1 wants total >= free >= 0");
    (*gpus)[f[1]].bar1_total = total;
    (*gpus)[f[1]].bar1_free = free;
    return OkStatus();
  }
  if (kind == "cuda" && key == "dmabuf" && f.size() == 4 && (f[3] == "0" || f[3] == "1")) {
    (*gpus)[f[1]].dmabuf = f[3] == "1" ? Tristate::kYes : Tristate::kNo;
    return OkStatus();
  }
  return InvalidArgumentError("unknown record '" + kind + " ... " + key + "'");
}

}  // namespace

Tristate DmaBufFromErrnoName(std::string_view name) {
  if (name == "EBADF") return Tristate::kYes;
  if (name == "EOPNOTSUPP" || name == "EPROTONOSUPPORT" || name == "ENOSYS") return Tristate::kNo;
  return Tristate::kUnknown;
}

void RecordDataDirectAnswer(std::string_view answer, RdmaDevice* dev) {
  dev->data_direct_pci.clear();
  dev->data_direct_path.clear();
  if (answer.starts_with('/')) {
    dev->data_direct = Tristate::kYes;
    dev->data_direct_path = std::string(answer);
    dev->data_direct_detail.clear();
    return;
  }
  dev->data_direct = answer == "ENODEV" ? Tristate::kNo : Tristate::kUnknown;
  dev->data_direct_detail = std::string(answer);
}

std::unique_ptr<DeviceProber> MakeNullDeviceProber() {
  return std::make_unique<NullDeviceProber>();
}

StatusOr<std::unique_ptr<DeviceProber>> ParseRecordedProbes(std::string_view text,
                                                            const std::string& source) {
  std::map<std::string, RecordedDevice> devices;
  std::map<std::string, RecordedGpu> gpus;
  Status st = ForEachContentLine(
      text, [&](std::string_view line) { return ParseLine(Fields(line), &devices, &gpus); });
  if (!st.ok()) return st.WithContext(source);
  std::unique_ptr<DeviceProber> out =
      std::make_unique<RecordedDeviceProber>("recorded", std::move(devices), std::move(gpus));
  return out;
}

StatusOr<std::unique_ptr<DeviceProber>> MakeFileDeviceProber(const std::string& path) {
  RDMASTACK_ASSIGN_OR_RETURN(std::string text, ReadLocalFile(path, 1 << 20));
  return ParseRecordedProbes(text, path);
}

}  // namespace rdmastack::node
