#include "agents/client/node_plan.h"

#include <algorithm>

#include "node/checks/checks.h"
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

}  // namespace

NodePlan PlanNode(const node::NodeFacts& facts, const node::Requirements& requirements) {
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
  plan.capable = true;
  plan.transport = ev.selected_transport;
  if (plan.transport == "GPUDirect") {
    const node::Verdict* gd = FindVerdict(ev, "GPUDirect");
    plan.registration = gd != nullptr ? gd->via : "";
  }
  // The GPU's nearest NIC carries GPU-direct traffic best; otherwise the first usable device.
  const node::checks::ClientGid* chosen = &gids.front();
  if (plan.transport == "GPUDirect" && !facts.gpus.empty()) {
    for (const auto& g : gids) {
      if (g.device == facts.gpus.front().nearest_nic) {
        chosen = &g;
        break;
      }
    }
  }
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
    // The NIC nearest each GPU, within the profile's distance: cuFile picks among the listed
    // NICs per GPU, and a NIC no GPU is near would only carry GPU-direct over the CPU.
    for (const node::Gpu& gpu : facts.gpus) {
      node::PathType path = node::PathType::kSys;
      if (!node::ParsePathType(gpu.path_type, &path) ||
          static_cast<int>(path) > static_cast<int>(requirements.max_gpu_nic_distance) ||
          !usable(gpu.nearest_nic)) {
        continue;
      }
      add(gpu.nearest_nic);
    }
  }
  if (plan.rdma_devices.empty()) {
    add(chosen->device);
    for (const auto& g : gids) {
      if (g.gid_index == plan.gid_index) add(g.device);
    }
  }
  plan.rdma_device = plan.rdma_devices.front();
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
