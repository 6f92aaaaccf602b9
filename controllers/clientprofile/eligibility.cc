#include "controllers/clientprofile/eligibility.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "controllers/common/node_walk.h"
#include "crds/types/int_or_string.h"
#include "crds/types/reasons.h"
#include "crds/types/status_rails.h"
#include "lib/rails/gpu_rails.h"
#include "node/checks/checks.h"
#include "node/checks/gpu_checks.h"
#include "node/probe/parsers.h"
#include "node/probe/pci_topology.h"

namespace rdmastack::clientprofile {

namespace reasons = crd::reasons;

namespace {

// The agent's checks that do not depend on a profile's settings: whatever the profile, a node
// that fails one of them cannot move data over RDMA.
constexpr std::string_view kNodeChecks[] = {"rdma.devices", "rdma.nic-generation",
                                            "rdma.port-state", "rdma.modules", "rdma.device-files"};

Eligibility Ineligible(std::string reason, std::string message) {
  Eligibility e;
  e.reason = std::move(reason);
  e.message = std::move(message);
  return e;
}

const crd::CheckResult* FindCheck(const crd::RdmaNodeStatus& node, std::string_view id) {
  for (const auto& c : node.checks) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

std::string Describe(const crd::CheckResult& c) {
  std::string out = c.id + ": " + c.message.value_or("failed");
  if (c.remedy) out += " (" + *c.remedy + ")";
  return out;
}

struct GidChoice {
  std::optional<int32_t> index;
  std::string problem;
};

// Native InfiniBand has one GID, index 0 (fe80:: link-local). RoCE needs the RoCE v2 GID of an
// IPv4 address its netdev owns (the kernel adds one per address).
GidChoice ChooseGid(const crd::IntOrString& wanted, const crd::RdmaNodeStatus& node) {
  // -1: Auto.
  const int32_t fixed = wanted.is_int() ? static_cast<int32_t>(wanted.int_value()) : -1;
  bool infiniband = false, roce = false;
  for (const auto& d : node.devices) {
    for (const auto& p : d.ports) {
      if (p.state.value_or("") != "ACTIVE") continue;
      if (p.link_layer.value_or("") == "InfiniBand") {
        infiniband = true;
        if (fixed <= 0) return {0, ""};
        continue;
      }
      roce = true;
      if (fixed < 0) {
        if (const auto gid = crd::AutoClientGid(node, p)) return {*gid, ""};
        continue;
      }
      for (const auto& g : p.gids) {
        if (g.index == fixed) return {g.index, ""};
      }
    }
  }
  const std::string want = fixed >= 0 ? "GID index " + std::to_string(fixed) : "a usable GID";
  if (infiniband && !roce)
    return {std::nullopt, "no up InfiniBand port has " + want +
                              "; native InfiniBand has only GID index 0 (fe80:: link-local): set "
                              "gidIndex to 0 or Auto"};
  if (roce)
    return {std::nullopt, "no up RoCE port has " + want +
                              " for an IPv4 address of its netdev; assign the IPv4 address to the "
                              "RoCE netdev so the kernel adds a RoCE v2 GID, and leave gidIndex "
                              "Auto unless the index is known"};
  return {std::nullopt, "no RDMA port is up"};
}

bool ModuleLoaded(const crd::HostFacts& host, std::string_view name) {
  return std::any_of(host.modules.begin(), host.modules.end(), [&](const crd::KernelModule& m) {
    return m.name == name && m.loaded.value_or(false);
  });
}

struct GpuDirectPath {
  std::string registration;  // "" when GPU-direct is not possible
  bool loads_peer_mem = false;
  std::string reason, message;  // why not, or (possible) why this registration
};

GpuDirectPath Refused(std::string reason, std::string message) {
  return {"", false, std::move(reason), std::move(message)};
}

// "" when dma-buf works here, else why not.
std::string DmaBufProblem(const crd::RdmaNodeStatus& node) {
  const crd::HostFacts& host = *node.host;
  const auto flavor = host.nvidia_module_flavor.value_or(crd::NvidiaModuleFlavor::kNone);
  if (flavor == crd::NvidiaModuleFlavor::kProprietary)
    return "the proprietary NVIDIA kernel module cannot export dma-buf (switch to the open kernel "
           "module)";
  if (flavor != crd::NvidiaModuleFlavor::kOpen) return "the NVIDIA kernel module type is unknown";
  const std::string kernel = host.kernel_release.value_or("");
  const auto version = node::ParseKernelRelease(kernel);
  if (!version.ok() || !node::checks::KernelHasDmaBufMr(version->major, version->minor))
    return "kernel " + (kernel.empty() ? std::string("(unknown)") : kernel) +
           " predates dma-buf memory regions (5.12)";
  for (const auto& g : node.gpus) {
    if (!g.dma_buf_supported.value_or(false))
      return g.model.value_or("GPU") + " " + g.pci_address +
             " does not support dma-buf (Turing or newer and CUDA >= 11.7 needed)";
  }
  return "";
}

// "" when nvidia_peermem is loaded or the client may load it, else why not.
std::string PeerMemProblem(const crd::ClientProfileSpec& spec, const crd::HostFacts& host,
                           bool* loads) {
  *loads = false;
  if (ModuleLoaded(host, "nvidia_peermem")) return "";
  if (host.ib_core_flavor != crd::IbCoreFlavor::kMOFED)
    return "nvidia_peermem is not loaded and the inbox ib_core lacks the PeerDirect API; install "
           "MOFED/DOCA-OFED and load nvidia-peermem, or use DMABuf (open kernel module, kernel >= "
           "5.12)";
  if (!spec.load_peer_mem)
    return "nvidia_peermem is not loaded (it has no autoload); set loadPeerMem: true to let the "
           "client load it, or modprobe nvidia-peermem on the node";
  *loads = true;
  return "";
}

GpuDirectPath ChooseRegistration(const crd::ClientProfileSpec& spec,
                                 const crd::RdmaNodeStatus& node) {
  if (node.gpus.empty())
    return Refused(reasons::kNoGpu,
                   "the agent reports no NVIDIA GPU; use transport HostMemory on nodes without "
                   "GPUs, or select GPU nodes only");
  if (!node.host || node.host->nvidia_driver_version.value_or("").empty())
    return Refused(reasons::kNvidiaDriverNotLoaded,
                   "the nvidia kernel module is not loaded; install the NVIDIA driver");
  const std::string dmabuf = DmaBufProblem(node);
  bool loads = false;
  const std::string peermem = PeerMemProblem(spec, *node.host, &loads);
  const std::string via_dmabuf = "GPU-direct through dma-buf";
  const std::string via_peermem =
      std::string("GPU-direct through nvidia_peermem") +
      (loads ? " (not loaded yet: the client loads it, loadPeerMem)" : " (loaded)");
  switch (spec.memory_registration) {
    case crd::MemoryRegistration::kDMABuf:
      if (!dmabuf.empty())
        return Refused(reasons::kDmaBufUnsupported, "memoryRegistration DMABuf: " + dmabuf);
      return {"DMABuf", false, "", via_dmabuf};
    case crd::MemoryRegistration::kPeerMem:
      if (!peermem.empty()) return Refused(reasons::kPeerMemNotLoaded, peermem);
      return {"PeerMem", loads, "", via_peermem};
    case crd::MemoryRegistration::kAuto: break;
  }
  if (dmabuf.empty()) return {"DMABuf", false, "", via_dmabuf};
  if (peermem.empty()) return {"PeerMem", loads, "", via_peermem + "; dma-buf: " + dmabuf};
  // Neither: name the one closer to working, as the agent does.
  const bool peermem_closer =
      node.host->ib_core_flavor == crd::IbCoreFlavor::kMOFED ||
      node.host->nvidia_module_flavor == crd::NvidiaModuleFlavor::kProprietary;
  return peermem_closer
             ? Refused(reasons::kPeerMemNotLoaded, peermem + "; dma-buf: " + dmabuf)
             : Refused(reasons::kDmaBufUnsupported, "dma-buf: " + dmabuf + "; " + peermem);
}

// BAR1 must hold a transfer plus headroom on every GPU; the GPU and NIC must be close enough.
std::optional<GpuDirectPath> GpuLimits(const crd::ClientProfileSpec& spec,
                                       const crd::RdmaNodeStatus& node) {
  const int64_t transfer = crd::BytesFromIntOrQuantity(spec.max_transfer_size).value_or(0);
  for (const auto& g : node.gpus) {
    const std::string name = g.model.value_or("GPU") + " " + g.pci_address;
    int64_t free = -1;
    if (g.bar1_free_bytes && *g.bar1_free_bytes >= 0) {
      free = *g.bar1_free_bytes;
    } else if (g.bar1_total_bytes) {
      free = *g.bar1_total_bytes - node::kBar1DriverBytes;
    }
    if (free < 0)
      return Refused(reasons::kBar1Unknown, name +
                                                ": BAR1 size unknown; run the agent with NVML or "
                                                "mount the host's /sys so it can read the BAR");
    if (transfer + node::kBar1ReserveBytes > free) {
      const int64_t fits = std::max<int64_t>(0, free - node::kBar1ReserveBytes);
      std::string text = name + ": a " + node::FormatBytes(transfer) + " transfer plus " +
                         node::FormatBytes(node::kBar1ReserveBytes) +
                         " headroom does not fit BAR1 free " + node::FormatBytes(free);
      if (g.bar1_total_bytes) text += " (total " + node::FormatBytes(*g.bar1_total_bytes) + ")";
      return Refused(reasons::kBar1TooSmall,
                     text + "; lower maxTransferSize to at most " + node::FormatBytes(fits) +
                         ", use transport HostMemory, or enable a larger BAR1");
    }
  }
  node::PathType max = node::PathType::kPxb;
  node::ParsePathType(crd::ToString(spec.max_gpu_nic_distance), &max);
  for (const auto& g : node.gpus) {
    node::PathType path = node::PathType::kSys;
    if (!g.path_type || !node::ParsePathType(*g.path_type, &path))
      return Refused(reasons::kTopologyUnknown, "no PCIe path from GPU " + g.pci_address +
                                                    " to an RDMA NIC could be computed");
    if (static_cast<int>(path) > static_cast<int>(max))
      return Refused(reasons::kGpuNicTooFar,
                     g.pci_address + " -> " + g.nearest_nic.value_or("NIC") + " " + *g.path_type +
                         " is farther than maxGpuNicDistance " + node::PathTypeName(max) +
                         "; use a NIC under the same PCIe switch as the GPU, or raise "
                         "maxGpuNicDistance knowingly");
  }
  return std::nullopt;
}

// What takes GPU-direct off the path a GPU and its NIC share, whatever the distance: ACS redirect
// on a bridge between them, or an IOMMU that translates their DMA.
std::optional<GpuDirectPath> PathIsolation(const crd::RdmaNodeStatus& node) {
  for (const auto& g : node.gpus) {
    if (!g.acs_redirect.value_or(false)) continue;
    const std::string bridges = g.acs_redirect_bridges.empty()
                                    ? std::string("a bridge")
                                    : "bridge " + node::checks::JoinList(g.acs_redirect_bridges);
    return Refused(reasons::kAcsRedirectOnPath,
                   g.pci_address + " -> " + g.nearest_nic.value_or("NIC") + ": PCIe ACS on " +
                       bridges +
                       " redirects peer-to-peer traffic up to the root complex, so GPU-direct "
                       "would not take the switch path; turn ACS redirect off on that bridge "
                       "(BIOS, or setpci ECAP_ACS+0x6.w=0000 at boot) or use transport HostMemory");
  }
  for (const auto& g : node.gpus) {
    if (g.iommu != crd::IommuMode::kTranslated) continue;
    return Refused(reasons::kIommuTranslating,
                   g.pci_address + " -> " + g.nearest_nic.value_or("NIC") +
                       ": the IOMMU translates their DMA, and GPUDirect RDMA needs it off or in "
                       "pass-through; boot with iommu=pt or use transport HostMemory");
  }
  return std::nullopt;
}

// Where the pool serves on networks some NIC of the node is on, each GPU's traffic takes its
// nearest NIC there (the client lists those): GPU-direct needs each within the profile's distance.
std::optional<GpuDirectPath> RailDistance(const crd::ClientProfileSpec& spec,
                                          const crd::RdmaNodeStatus& node,
                                          const std::vector<crd::PoolNetwork>& networks) {
  if (networks.empty()) return std::nullopt;
  const std::string_view max = crd::ToString(spec.max_gpu_nic_distance);
  const std::optional<std::string> far =
      rails::TooFar(crd::PlanStatusRails(node, networks, max), max);
  if (!far) return std::nullopt;
  return Refused(reasons::kGpuNicTooFar,
                 *far +
                     "; put a NIC near each GPU on the pool's networks (a rail), or raise "
                     "maxGpuNicDistance knowingly");
}

}  // namespace

Eligibility DecideEligibility(const crd::ClientProfileSpec& spec, const crd::RdmaNodeStatus* node,
                              const std::vector<crd::PoolNetwork>& networks) {
  if (node == nullptr || !node->agent || node->agent->state != crd::AgentState::kConnected)
    return Ineligible(reasons::kAgentNotReporting,
                      "the node's agent is not reporting (no RdmaNode, or Stale); check the "
                      "rdmastack-agent pod on the node");
  for (std::string_view id : kNodeChecks) {
    const crd::CheckResult* c = FindCheck(*node, id);
    if (c == nullptr) continue;
    if (c->status == crd::CheckStatus::kFail || c->status == crd::CheckStatus::kUnknown)
      return Ineligible(c->reason.value_or(reasons::kCheckFailed), Describe(*c));
  }
  if (node->devices.empty())
    return Ineligible(reasons::kNoRdmaDevice, "the agent reports no RDMA device on the node");
  const GidChoice gid = ChooseGid(spec.gid_index, *node);
  if (!gid.index) return Ineligible(reasons::kNoUsableGid, gid.problem);

  Eligibility e;
  e.eligible = true;
  e.reason = "Eligible";
  e.gid_index = gid.index;
  const std::string gid_text = "; GID index " + std::to_string(*gid.index);
  if (spec.transport == crd::Transport::kHostMemory) {
    e.transport = "HostMemory";
    e.message = "host memory, as the profile asks" + gid_text;
    return e;
  }
  GpuDirectPath path = ChooseRegistration(spec, *node);
  if (!path.registration.empty()) {
    if (auto limit = GpuLimits(spec, *node)) {
      path = std::move(*limit);
    } else if (auto isolated = PathIsolation(*node)) {
      path = std::move(*isolated);
    } else if (auto off_rails = RailDistance(spec, *node, networks)) {
      path = std::move(*off_rails);
    }
  }
  if (path.registration.empty()) {
    if (spec.transport == crd::Transport::kGPUDirect) return Ineligible(path.reason, path.message);
    e.transport = "HostMemory";
    e.message = "host memory: GPU-direct is not possible here (" + path.reason + ": " +
                path.message + ")" + gid_text;
    return e;
  }
  e.transport = "GPUDirect";
  e.memory_registration = path.registration;
  e.loads_peer_mem = path.loads_peer_mem;
  e.message = path.message + gid_text;
  return e;
}

}  // namespace rdmastack::clientprofile
