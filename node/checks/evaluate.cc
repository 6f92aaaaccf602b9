// Evaluate(): runs the checks that apply to the role and derives the verdicts from the checks
// that gate them.
#include <algorithm>

#include "node/checks/checks.h"
#include "node/checks/gpu_checks.h"
#include "node/checks/rdma_checks.h"

namespace rdmastack::node {
namespace {

using checks::Entry;
using checks::kGateway;
using checks::kGpuDirect;
using checks::kHostMemory;
using checks::kInfo;

Verdict Decide(const std::vector<Entry>& entries, unsigned gate, const char* capability) {
  Verdict v;
  v.capability = capability;
  std::vector<std::string> unverified;
  for (const Entry& e : entries) {
    if ((e.gates & gate) == 0) continue;
    const CheckResult& r = e.result;
    const bool blocks =
        r.status == CheckStatus::kFail || (r.status == CheckStatus::kUnknown && e.unknown_blocks);
    if (blocks) {
      v.capable = false;
      v.reason = r.reason;
      v.message = r.id + ": " + r.message;
      return v;
    }
    if (r.status == CheckStatus::kUnknown) unverified.push_back(r.id);
  }
  v.capable = true;
  v.reason = unverified.empty() ? "Verified" : "NotFullyVerified";
  v.message = unverified.empty() ? "every gating check passed"
                                 : "not verified: " + checks::JoinList(unverified);
  return v;
}

void AddRdmaChecks(const NodeFacts& f, const Requirements& req, std::vector<Entry>* out) {
  const unsigned data_path = req.role == Role::kGateway ? kGateway : (kHostMemory | kGpuDirect);
  out->push_back({checks::CheckKernel(f), kInfo, false});
  out->push_back({checks::CheckRdmaDevices(f), data_path, true});
  if (checks::HardwareDevices(f).empty()) return;  // everything below is about the devices
  out->push_back({checks::CheckNicGeneration(f), data_path, true});
  out->push_back({checks::CheckPortState(f), data_path, true});
  out->push_back({checks::CheckRdmaModules(f), data_path, true});
  out->push_back({checks::CheckDeviceFiles(f), data_path, true});
  if (req.role == Role::kGateway) {
    out->push_back({checks::CheckGatewayIp(f, req.rdma_ip), kGateway, true});
  } else {
    out->push_back({checks::CheckClientGid(f, req.gid_index), data_path, true});
  }
  out->push_back({checks::CheckDc(f), data_path, false});
  out->push_back({checks::CheckActiveMtu(f), kInfo, false});
  out->push_back({checks::CheckUmad(f), kInfo, false});
  out->push_back({checks::CheckNetns(f), kInfo, false});
  out->push_back({checks::CheckIbCoreFlavor(f), kInfo, false});
}

// A registration path GPU-direct does not use is reported, but its failure is not the node's.
void NoteUnusedRoute(CheckResult* r, bool unused, const std::string& via) {
  if (!unused || r->status != CheckStatus::kFail) return;
  r->status = CheckStatus::kWarn;
  r->message += " (not needed: GPU-direct registers memory via " + via + ")";
}

// Returns the registration path GPU-direct would use ("" when none works).
std::string AddGpuChecks(const NodeFacts& f, const Requirements& req, std::vector<Entry>* out) {
  out->push_back({checks::CheckGpuPresent(f), kGpuDirect, true});
  if (f.gpus.empty()) return "";
  out->push_back({checks::CheckNvidiaDriver(f), kGpuDirect, true});
  CheckResult peermem = checks::CheckPeerMem(f);
  CheckResult dmabuf = checks::CheckDmaBuf(f);
  const bool peermem_ok = peermem.status == CheckStatus::kPass;
  const bool dmabuf_ok = dmabuf.status == CheckStatus::kPass;
  std::string via;
  unsigned peermem_gate = kInfo;
  unsigned dmabuf_gate = kInfo;
  switch (req.registration) {
    case Registration::kPeerMem:
      peermem_gate = kGpuDirect;
      via = "PeerMem";
      break;
    case Registration::kDmaBuf:
      dmabuf_gate = kGpuDirect;
      via = "DMABuf";
      break;
    case Registration::kAuto:
      // dma-buf is the current recommendation (peermem is the legacy path); take whichever works.
      if (dmabuf_ok) {
        via = "DMABuf";
      } else if (peermem_ok) {
        via = "PeerMem";
      } else {
        // Neither works: gate on the one that is closer to working, so the reason is actionable.
        (f.drivers.peer_memory_api || f.drivers.nvidia_module_flavor == "Proprietary"
             ? peermem_gate
             : dmabuf_gate) = kGpuDirect;
      }
      break;
  }
  if (!via.empty()) {
    NoteUnusedRoute(&peermem, via != "PeerMem", via);
    NoteUnusedRoute(&dmabuf, via != "DMABuf", via);
  }
  out->push_back({std::move(peermem), peermem_gate, true});
  out->push_back({std::move(dmabuf), dmabuf_gate, true});
  out->push_back({checks::CheckBar1(f, req.max_transfer_bytes), kGpuDirect, true});
  out->push_back({checks::CheckGpuNicDistance(f, req.max_gpu_nic_distance), kGpuDirect, true});
  // Unreadable ACS (a check run without CAP_SYS_ADMIN) or an IOMMU mode that cannot be told
  // leaves GPU-direct "not fully verified" rather than refused: the other checks still hold.
  out->push_back({checks::CheckAcsRedirect(f), kGpuDirect, false});
  out->push_back({checks::CheckIommu(f), kGpuDirect, false});
  // A drift breaks GPU-direct only at the next reload: reported, never gating.
  if (f.drivers.Loaded("nvidia_peermem"))
    out->push_back({checks::CheckPeerMemAbi(f), kInfo, false});
  // Only where the tray has Data Direct functions, or a device says it uses one.
  const bool data_direct =
      !f.data_direct_functions.empty() ||
      std::any_of(f.rdma_devices.begin(), f.rdma_devices.end(),
                  [](const RdmaDevice& d) { return d.data_direct == Tristate::kYes; });
  if (data_direct) out->push_back({checks::CheckDataDirect(f), kInfo, false});
  return via;
}

}  // namespace

Evaluation Evaluate(const NodeFacts& facts, const Requirements& req) {
  std::vector<Entry> entries;
  AddRdmaChecks(facts, req, &entries);
  std::string via;
  const bool gpu_checks = req.role == Role::kClient && req.transport != Transport::kHostMemory;
  if (gpu_checks) via = AddGpuChecks(facts, req, &entries);
  entries.push_back({checks::CheckReadErrors(facts), kInfo, false});

  Evaluation ev;
  ev.requirements = req;
  for (const Entry& e : entries) ev.checks.push_back(e.result);
  if (req.role == Role::kGateway) {
    ev.verdicts.push_back(Decide(entries, kGateway, "Gateway"));
    ev.ready = ev.verdicts.back().capable;
    return ev;
  }
  if (gpu_checks) {
    Verdict gd = Decide(entries, kGpuDirect, "GPUDirect");
    if (gd.capable) gd.via = via;
    ev.verdicts.push_back(gd);
  }
  ev.verdicts.push_back(Decide(entries, kHostMemory, "HostMemory"));
  auto capable = [&](const char* cap) {
    return std::any_of(ev.verdicts.begin(), ev.verdicts.end(),
                       [&](const Verdict& v) { return v.capability == cap && v.capable; });
  };
  switch (req.transport) {
    case Transport::kGpuDirect:
      if (capable("GPUDirect")) ev.selected_transport = "GPUDirect";
      break;
    case Transport::kHostMemory:
      if (capable("HostMemory")) ev.selected_transport = "HostMemory";
      break;
    case Transport::kAuto:
      if (capable("GPUDirect")) {
        ev.selected_transport = "GPUDirect";
      } else if (capable("HostMemory")) {
        ev.selected_transport = "HostMemory";
      }
      break;
  }
  ev.ready = !ev.selected_transport.empty();
  return ev;
}

const char* RoleName(Role r) {
  return r == Role::kGateway ? "gateway" : "client";
}

const char* TransportName(Transport t) {
  switch (t) {
    case Transport::kGpuDirect: return "GPUDirect";
    case Transport::kHostMemory: return "HostMemory";
    case Transport::kAuto: break;
  }
  return "Auto";
}

const char* RegistrationName(Registration r) {
  switch (r) {
    case Registration::kDmaBuf: return "DMABuf";
    case Registration::kPeerMem: return "PeerMem";
    case Registration::kAuto: break;
  }
  return "Auto";
}

StatusOr<Role> ParseRole(std::string_view text) {
  if (text == "gateway") return Role::kGateway;
  if (text == "client") return Role::kClient;
  return InvalidArgumentError("role must be gateway or client, got '" + std::string(text) + "'");
}

StatusOr<Transport> ParseTransport(std::string_view text) {
  for (Transport t : {Transport::kAuto, Transport::kGpuDirect, Transport::kHostMemory}) {
    if (text == TransportName(t)) return t;
  }
  return InvalidArgumentError("transport must be Auto, GPUDirect or HostMemory, got '" +
                              std::string(text) + "'");
}

StatusOr<Registration> ParseRegistration(std::string_view text) {
  for (Registration r : {Registration::kAuto, Registration::kDmaBuf, Registration::kPeerMem}) {
    if (text == RegistrationName(r)) return r;
  }
  return InvalidArgumentError("memory registration must be Auto, DMABuf or PeerMem, got '" +
                              std::string(text) + "'");
}

}  // namespace rdmastack::node
