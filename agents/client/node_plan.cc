#include "agents/client/node_plan.h"

#include <algorithm>

#include "node/checks/checks.h"
#include "node/checks/gpu_nic_paths.h"
#include "node/checks/rdma_checks.h"

namespace rdmastack::client {
namespace {

const node::Verdict* FindVerdict(const node::Evaluation& ev, std::string_view capability) {
  for (const auto& v : ev.verdicts) {
    if (v.capability == capability) return &v;
  }
  return nullptr;
}

const node::CheckResult* FindCheck(const node::Evaluation& ev, std::string_view id) {
  for (const auto& c : ev.checks) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

// The verdict that explains a node without a transport: the one asked for; for Auto HostMemory,
// whose checks are a subset of GPU-direct's, so its failure is the more basic one.
const node::Verdict* DecidingVerdict(const node::Evaluation& ev) {
  const node::Verdict* v = nullptr;
  if (ev.requirements.transport == node::Transport::kGpuDirect) v = FindVerdict(ev, "GPUDirect");
  if (v == nullptr) v = FindVerdict(ev, "HostMemory");
  return v;
}

// Each GPU's NIC among the devices with a usable GID, on the pool's networks where one sits on
// them; the distances are the agent's (every NIC, or the nearest alone where that is all it has).
rails::RailPlan PlanRails(const node::NodeFacts& facts,
                          const std::vector<node::checks::ClientGid>& gids,
                          const std::vector<rails::RailNetwork>& networks,
                          const node::Requirements& requirements) {
  std::vector<rails::RailNic> nics;
  for (const auto& g : gids) {
    if (std::any_of(nics.begin(), nics.end(), [&](const auto& n) { return n.name == g.device; }))
      continue;
    rails::RailNic nic{g.device, {}};
    for (const node::NetDev& n : facts.netdevs) {
      if (n.rdma_device != g.device) continue;
      for (const auto& ip : n.ipv4) nic.ipv4.push_back(ip.cidr);
    }
    nics.push_back(std::move(nic));
  }
  std::vector<rails::RailGpu> gpus;
  for (const node::Gpu& gpu : facts.gpus) {
    rails::RailGpu g{gpu.pci_address, {}};
    for (const node::GpuNicPath* p : node::checks::PathsFrom(facts, gpu.pci_address)) {
      g.nics.push_back({p->nic, p->path_type});
    }
    if (g.nics.empty() && !gpu.nearest_nic.empty())
      g.nics.push_back({gpu.nearest_nic, gpu.path_type});
    gpus.push_back(std::move(g));
  }
  return rails::PlanGpuRails(gpus, nics, networks,
                             node::PathTypeName(requirements.max_gpu_nic_distance));
}

}  // namespace

NodePlan PlanNode(const node::NodeFacts& facts, const node::Requirements& requirements,
                  const std::vector<rails::RailNetwork>& networks) {
  NodePlan plan;
  plan.evaluation = node::Evaluate(facts, requirements);
  const node::Evaluation& ev = plan.evaluation;
  if (!ev.ready) {
    const node::Verdict* v = DecidingVerdict(ev);
    plan.reason = v != nullptr ? v->reason : "NotCapable";
    plan.message = v != nullptr ? v->capability + ": " + v->reason + ": " + v->message
                                : "the node agent's checks found no transport";
    return plan;
  }
  const std::vector<node::checks::ClientGid> gids =
      node::checks::FindClientGids(facts, requirements.gid_index);
  if (gids.empty()) {  // Evaluate() gates on the same GIDs; kept so a change there cannot crash
    plan.reason = "NoUsableGid";
    plan.message = "no usable GID on an up RDMA port";
    return plan;
  }
  const rails::RailPlan rails = PlanRails(facts, gids, networks, requirements);
  plan.on_rails = rails.on_rails;
  plan.gpu_rails = rails.gpus;
  plan.capable = true;
  plan.transport = ev.selected_transport;
  // The pool's networks reached only through a NIC too far from some GPU: GPU-direct to this
  // pool would cross the CPU (the operator decides the same: eligibility.cc).
  const std::optional<std::string> far =
      rails::TooFar(rails, node::PathTypeName(requirements.max_gpu_nic_distance));
  if (plan.transport == "GPUDirect" && far) {
    if (requirements.transport == node::Transport::kGpuDirect) {
      plan.capable = false;
      plan.transport.clear();
      plan.reason = "GpuNicTooFar";
      plan.message = "GPUDirect: GpuNicTooFar: " + *far;
      return plan;
    }
    plan.transport = "HostMemory";
    plan.note = "host memory: " + *far;
  }
  if (plan.transport == "GPUDirect") {
    const node::Verdict* gd = FindVerdict(ev, "GPUDirect");
    plan.registration = gd != nullptr ? gd->via : "";
  }
  // The NIC of the first GPU carries GPU-direct traffic best; otherwise the first usable device
  // that reaches the pool.
  const node::checks::ClientGid* chosen = nullptr;
  auto first_gid_of = [&](const std::string& device) -> const node::checks::ClientGid* {
    for (const auto& g : gids) {
      if (g.device == device) return &g;
    }
    return nullptr;
  };
  if (plan.transport == "GPUDirect" && !rails.gpus.empty()) {
    chosen = first_gid_of(rails.gpus.front().nic);
  }
  for (size_t i = 0; chosen == nullptr && i < rails.reachable.size(); ++i) {
    chosen = first_gid_of(rails.reachable[i]);
  }
  if (chosen == nullptr) chosen = &gids.front();
  plan.gid_index = chosen->gid_index;
  // One VGWRDMA_GID_INDEX serves every device listed.
  auto usable = [&](const std::string& device) {
    return std::any_of(gids.begin(), gids.end(), [&](const node::checks::ClientGid& g) {
      return g.device == device && g.gid_index == plan.gid_index;
    });
  };
  auto add = [&](const std::string& device) {
    if (std::find(plan.rdma_devices.begin(), plan.rdma_devices.end(), device) ==
        plan.rdma_devices.end()) {
      plan.rdma_devices.push_back(device);
    }
  };
  if (plan.transport == "GPUDirect") {
    // The chosen NIC of each GPU within the profile's distance: cuFile picks among the listed
    // NICs per GPU, and a NIC no GPU is near would only carry GPU-direct over the CPU.
    for (const std::string& device : rails.devices) {
      if (usable(device)) add(device);
    }
  }
  if (plan.rdma_devices.empty()) {
    add(chosen->device);
    for (const std::string& device : rails.reachable) {
      if (usable(device)) add(device);
    }
  }
  plan.rdma_device = plan.rdma_devices.front();
  for (const std::string& device : plan.rdma_devices) {
    auto rail = rails.rail_of.find(device);
    if (rail != rails.rail_of.end() && !rail->second.empty()) plan.rails.insert(rail->second);
  }
  return plan;
}

bool WouldUsePeerMem(const node::NodeFacts& facts, const node::Evaluation& ev) {
  const node::Requirements& req = ev.requirements;
  if (req.transport == node::Transport::kHostMemory || facts.gpus.empty()) return false;
  switch (req.registration) {
    case node::Registration::kPeerMem: return true;
    case node::Registration::kDmaBuf: return false;
    case node::Registration::kAuto: break;
  }
  const node::CheckResult* dmabuf = FindCheck(ev, "gpu.dmabuf");
  return dmabuf == nullptr || dmabuf->status != node::CheckStatus::kPass;
}

PeerMemLoad DecidePeerMemLoad(const node::NodeFacts& facts, const node::Evaluation& ev,
                              bool allowed) {
  if (facts.drivers.Loaded("nvidia_peermem")) return {false, "nvidia_peermem is loaded"};
  if (!WouldUsePeerMem(facts, ev)) return {false, "GPU-direct does not use nvidia_peermem here"};
  if (!allowed) {
    return {false, "nvidia_peermem is not loaded and --load-peermem is off (loadPeerMem)"};
  }
  switch (facts.drivers.nvidia_peermem_installed) {
    case node::Tristate::kYes: break;
    case node::Tristate::kNo:
      return {false, "nvidia_peermem is not installed for kernel " + facts.kernel.release +
                         " (not in lib/modules/" + facts.kernel.release + "/modules.dep)"};
    case node::Tristate::kUnknown:
      return {false, "cannot tell whether nvidia_peermem is installed for kernel " +
                         facts.kernel.release + " (lib/modules/" + facts.kernel.release +
                         "/modules.dep not readable under the host root)"};
  }
  return {true, "GPU-direct needs nvidia_peermem, which is installed but not loaded"};
}

}  // namespace rdmastack::client
