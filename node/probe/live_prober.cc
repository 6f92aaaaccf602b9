// DeviceProber for the running machine. Every library is optional and loaded with dlopen, each
// newer symbol looked up on its own (as NCCL's ibvwrap does), so the agent runs on hosts without
// rdma-core, without mlx5 and without the NVIDIA driver, and reports what it could not learn.
#include <dlfcn.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "node/probe/device_prober.h"
#include "node/probe/dl_library.h"
#include "node/probe/nvml_query.h"
#include "node/probe/parsers.h"
#include "node/probe/subprocess.h"

namespace rdmastack::node {
namespace {

const char* ErrnoName(int err) {
  switch (err) {
    case EBADF: return "EBADF";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
    case ENOSYS: return "ENOSYS";
    case EINVAL: return "EINVAL";
    case EPERM: return "EPERM";
    case EACCES: return "EACCES";
    case ENODEV: return "ENODEV";
    default: return "other";
  }
}

int MtuBytes(ibv_mtu mtu) {
  switch (mtu) {
    case IBV_MTU_256: return 256;
    case IBV_MTU_512: return 512;
    case IBV_MTU_1024: return 1024;
    case IBV_MTU_2048: return 2048;
    case IBV_MTU_4096: return 4096;
  }
  return 0;
}

struct Verbs {
  Verbs() : lib("libibverbs.so.1"), mlx5("libmlx5.so.1") {
    get_list = lib.Get<decltype(&::ibv_get_device_list)>("ibv_get_device_list");
    free_list = lib.Get<decltype(&::ibv_free_device_list)>("ibv_free_device_list");
    dev_name = lib.Get<decltype(&::ibv_get_device_name)>("ibv_get_device_name");
    open = lib.Get<decltype(&::ibv_open_device)>("ibv_open_device");
    close = lib.Get<decltype(&::ibv_close_device)>("ibv_close_device");
    query_port = lib.Get<int (*)(ibv_context*, uint8_t, ibv_port_attr*)>("ibv_query_port");
    alloc_pd = lib.Get<decltype(&::ibv_alloc_pd)>("ibv_alloc_pd");
    dealloc_pd = lib.Get<decltype(&::ibv_dealloc_pd)>("ibv_dealloc_pd");
    reg_dmabuf = lib.Get<decltype(&::ibv_reg_dmabuf_mr)>("ibv_reg_dmabuf_mr");
    dereg_mr = lib.Get<decltype(&::ibv_dereg_mr)>("ibv_dereg_mr");
    create_cq = lib.Get<decltype(&::ibv_create_cq)>("ibv_create_cq");
    destroy_cq = lib.Get<decltype(&::ibv_destroy_cq)>("ibv_destroy_cq");
    create_srq = lib.Get<decltype(&::ibv_create_srq)>("ibv_create_srq");
    destroy_srq = lib.Get<decltype(&::ibv_destroy_srq)>("ibv_destroy_srq");
    destroy_qp = lib.Get<decltype(&::ibv_destroy_qp)>("ibv_destroy_qp");
    mlx5_create_qp = mlx5.Get<decltype(&::mlx5dv_create_qp)>("mlx5dv_create_qp");
    mlx5_is_supported = mlx5.Get<decltype(&::mlx5dv_is_supported)>("mlx5dv_is_supported");
    // libmlx5 MLX5_1.25 (rdma-core 54); Debian 12's headers do not declare it yet.
    mlx5_data_direct_path =
        mlx5.Get<int (*)(ibv_context*, char*, size_t)>("mlx5dv_get_data_direct_sysfs_path");
  }
  bool usable() const { return get_list && free_list && dev_name && open && close && query_port; }

  DlLibrary lib;
  DlLibrary mlx5;
  decltype(&::ibv_get_device_list) get_list = nullptr;
  decltype(&::ibv_free_device_list) free_list = nullptr;
  decltype(&::ibv_get_device_name) dev_name = nullptr;
  decltype(&::ibv_open_device) open = nullptr;
  decltype(&::ibv_close_device) close = nullptr;
  int (*query_port)(ibv_context*, uint8_t, ibv_port_attr*) = nullptr;
  decltype(&::ibv_alloc_pd) alloc_pd = nullptr;
  decltype(&::ibv_dealloc_pd) dealloc_pd = nullptr;
  decltype(&::ibv_reg_dmabuf_mr) reg_dmabuf = nullptr;
  decltype(&::ibv_dereg_mr) dereg_mr = nullptr;
  decltype(&::ibv_create_cq) create_cq = nullptr;
  decltype(&::ibv_destroy_cq) destroy_cq = nullptr;
  decltype(&::ibv_create_srq) create_srq = nullptr;
  decltype(&::ibv_destroy_srq) destroy_srq = nullptr;
  decltype(&::ibv_destroy_qp) destroy_qp = nullptr;
  decltype(&::mlx5dv_create_qp) mlx5_create_qp = nullptr;
  decltype(&::mlx5dv_is_supported) mlx5_is_supported = nullptr;
  int (*mlx5_data_direct_path)(ibv_context*, char*, size_t) = nullptr;
};

class LiveDeviceProber final : public DeviceProber {
 public:
  explicit LiveDeviceProber(LiveProberOptions options) : options_(std::move(options)) {}
  std::string Source() const override { return "live"; }

  void ProbeRdmaDevice(RdmaDevice* dev, std::vector<ProbeIssue>* issues) override {
    if (!verbs_) verbs_ = std::make_unique<Verbs>();
    if (!verbs_->usable()) {
      dev->dmabuf_detail = "libibverbs not loadable: " + verbs_->lib.error();
      return;
    }
    int n = 0;
    ibv_device** list = verbs_->get_list(&n);
    if (list == nullptr) {
      dev->dmabuf_detail = std::string("ibv_get_device_list: ") + std::strerror(errno);
      return;
    }
    ibv_device* match = nullptr;
    for (int i = 0; i < n; ++i) {
      if (dev->name == verbs_->dev_name(list[i])) match = list[i];
    }
    ibv_context* ctx = match ? verbs_->open(match) : nullptr;
    if (ctx == nullptr) {
      dev->dmabuf_detail = match ? std::string("ibv_open_device: ") + std::strerror(errno)
                                 : "device not listed by libibverbs";
      if (match)
        issues->push_back({"probes", "/dev/infiniband/" + dev->uverbs, dev->dmabuf_detail});
      verbs_->free_list(list);
      return;
    }
    for (auto& p : dev->ports) {
      ibv_port_attr attr{};
      if (verbs_->query_port(ctx, static_cast<uint8_t>(p.number), &attr) == 0) {
        p.active_mtu = MtuBytes(attr.active_mtu);
        p.active_mtu_source = "verbs";
      }
    }
    ProbeDataDirect(ctx, dev);
    ibv_pd* pd = verbs_->alloc_pd ? verbs_->alloc_pd(ctx) : nullptr;
    if (pd != nullptr) {
      ProbeDmaBuf(pd, dev);
      ProbeDc(ctx, pd, dev);
      verbs_->dealloc_pd(pd);
    } else {
      dev->dmabuf_detail = "ibv_alloc_pd failed";
    }
    verbs_->close(ctx);
    verbs_->free_list(list);
  }

  // One NVML session for all GPUs of the node, in this process or in a helper process, or the
  // answer a recent probe already got (LiveProberOptions).
  void PrepareGpus(const std::vector<Gpu>& gpus, std::vector<ProbeIssue>* issues) override {
    std::vector<std::string> bdfs;
    for (const auto& g : gpus) bdfs.push_back(g.pci_address);
    if (bdfs.empty()) return;
    std::string lines;
    NvmlSampleCache* cache = options_.nvml_cache.get();
    const auto now = std::chrono::steady_clock::now();
    if (cache != nullptr && cache->bdfs == bdfs && now - cache->taken < options_.nvml_max_age) {
      lines = cache->lines;
    } else {
      lines = options_.nvml_helper.empty()
                  ? RecordedNvmlLines(QueryNvmlBar1(bdfs, options_.root, issues))
                  : QueryThroughHelper(bdfs, issues);
      if (cache != nullptr) *cache = NvmlSampleCache{bdfs, lines, now};
    }
    auto recorded = ParseRecordedProbes(lines, "nvml");
    if (recorded.ok()) nvml_results_ = std::move(*recorded);
  }

  void ProbeGpu(Gpu* gpu, std::vector<ProbeIssue>* issues) override {
    if (nvml_results_) nvml_results_->ProbeGpu(gpu, issues);
  }

 private:
  void ProbeDmaBuf(ibv_pd* pd, RdmaDevice* dev) {
    if (verbs_->reg_dmabuf == nullptr) {
      // rdma-core older than v34: same answer NCCL gives.
      dev->dmabuf_supported = Tristate::kNo;
      dev->dmabuf_detail = "ibv_reg_dmabuf_mr missing (rdma-core < 34)";
      return;
    }
    errno = 0;
    ibv_mr* mr = verbs_->reg_dmabuf(pd, 0, 0, 0, -1, 0);
    int err = errno;
    if (mr != nullptr) {
      verbs_->dereg_mr(mr);
      dev->dmabuf_detail = "unexpected success with fd=-1";
      return;
    }
    dev->dmabuf_detail = ErrnoName(err);
    dev->dmabuf_supported = DmaBufFromErrnoName(dev->dmabuf_detail);
  }

  // Asked of mlx5 devices only, as NCCL does; the answer is a path below /sys.
  void ProbeDataDirect(ibv_context* ctx, RdmaDevice* dev) {
    if (!verbs_->mlx5_is_supported || !verbs_->mlx5_is_supported(ctx->device)) return;
    if (verbs_->mlx5_data_direct_path == nullptr) {
      dev->data_direct_detail =
          "mlx5dv_get_data_direct_sysfs_path missing (libmlx5 older than MLX5_1.25)";
      return;
    }
    char path[4096] = {};
    errno = 0;
    if (verbs_->mlx5_data_direct_path(ctx, path, sizeof(path) - 1) == 0) {
      RecordDataDirectAnswer(path, dev);
      return;
    }
    RecordDataDirectAnswer(ErrnoName(errno), dev);
  }

  // Creating a DCT is what the kernel gates on the dct HCA capability (UCX does the same).
  void ProbeDc(ibv_context* ctx, ibv_pd* pd, RdmaDevice* dev) {
    if (!verbs_->mlx5_create_qp || !verbs_->mlx5_is_supported || !verbs_->create_cq ||
        !verbs_->create_srq || !verbs_->mlx5_is_supported(ctx->device)) {
      return;
    }
    ibv_cq* cq = verbs_->create_cq(ctx, 1, nullptr, nullptr, 0);
    ibv_srq_init_attr srq_attr{};
    srq_attr.attr.max_wr = 1;
    srq_attr.attr.max_sge = 1;
    ibv_srq* srq = verbs_->create_srq(pd, &srq_attr);
    if (cq != nullptr && srq != nullptr) {
      ibv_qp_init_attr_ex qp_attr{};
      qp_attr.qp_type = IBV_QPT_DRIVER;
      qp_attr.send_cq = cq;
      qp_attr.recv_cq = cq;
      qp_attr.srq = srq;
      qp_attr.pd = pd;
      qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD;
      mlx5dv_qp_init_attr dv{};
      dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_DC;
      dv.dc_init_attr.dc_type = MLX5DV_DCTYPE_DCT;
      dv.dc_init_attr.dct_access_key = 0x1ee7;
      errno = 0;
      ibv_qp* qp = verbs_->mlx5_create_qp(ctx, &qp_attr, &dv);
      if (qp != nullptr) {
        dev->dc_supported = Tristate::kYes;
        verbs_->destroy_qp(qp);
      } else if (errno == EOPNOTSUPP) {
        dev->dc_supported = Tristate::kNo;
      }
    }
    if (srq != nullptr) verbs_->destroy_srq(srq);
    if (cq != nullptr) verbs_->destroy_cq(cq);
  }

  // `rdmastack-agent nvml-bar1 --root ROOT BDF...` in a child: NVML (and the libcuda it pulls in)
  // never maps into the daemon, whose resident memory it would otherwise triple.
  std::string QueryThroughHelper(const std::vector<std::string>& bdfs,
                                 std::vector<ProbeIssue>* issues) const {
    std::vector<std::string> argv = {options_.nvml_helper};
    for (auto& word : NvmlHelperArgs(options_.root, bdfs)) argv.push_back(std::move(word));
    auto run = RunAndCapture(argv, options_.nvml_helper_timeout);
    if (!run.ok()) {
      issues->push_back({"probes", options_.nvml_helper, run.status().message()});
      return {};
    }
    for (const auto line : SplitNonEmpty(run->err, '\n')) {
      issues->push_back({"probes", "libnvidia-ml.so.1", std::string(line)});
    }
    return run->out;
  }

  LiveProberOptions options_;
  // Loaded on first use: a node without RDMA devices never maps the libraries.
  std::unique_ptr<Verbs> verbs_;
  std::unique_ptr<DeviceProber> nvml_results_;
};

}  // namespace

std::unique_ptr<DeviceProber> MakeLiveDeviceProber(LiveProberOptions options) {
  return std::make_unique<LiveDeviceProber>(std::move(options));
}

}  // namespace rdmastack::node
