#include "controllers/rdmanode/rdmanode_status.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

#include "base/pci_address.h"
#include "base/rfc3339.h"
#include "base/utf8.h"
#include "controllers/common/conditions.h"
#include "crds/types/reasons.h"
#include "lib/rails/gpu_rails.h"

namespace rdmastack::rdmanode {

namespace reasons = crd::reasons;

namespace {

using agent::v1::Check;
using agent::v1::NodeReport;

// Cuts to at most `max` bytes without splitting a UTF-8 sequence (within the schema's maxLength,
// which counts characters): names and ids, where a marker would make another name.
std::string Clip(const std::string& s, size_t max) {
  return std::string(CutUtf8(s, max, TextUnit::kBytes));
}

std::optional<std::string> Opt(const std::string& s, size_t max) {
  if (s.empty()) return std::nullopt;
  return Clip(s, max);
}

// The schema's condition reason pattern: CamelCase letters and digits (plus _ , :).
bool IsConditionReason(std::string_view r) {
  if (r.empty() || r.size() > 1024 || !std::isalpha(static_cast<unsigned char>(r.front())))
    return false;
  return std::all_of(r.begin(), r.end(),
                     [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ',' ||
                              c == ':';
                     }) &&
         r.back() != ',' && r.back() != ':';
}

const char* StatusName(Check::Status s) {
  switch (s) {
    case Check::PASS: return "Pass";
    case Check::WARN: return "Warn";
    case Check::FAIL: return "Fail";
    default: return "Unknown";
  }
}

crd::CheckStatus ToCrd(Check::Status s) {
  switch (s) {
    case Check::PASS: return crd::CheckStatus::kPass;
    case Check::WARN: return crd::CheckStatus::kWarn;
    case Check::FAIL: return crd::CheckStatus::kFail;
    default: return crd::CheckStatus::kUnknown;
  }
}

template <typename E>
std::optional<E> OptEnum(const std::string& s) {
  if (s.empty()) return std::nullopt;
  return crd::EnumFromString<E>(s);
}

void FillHost(const agent::v1::HostInfo& h, crd::HostFacts* out) {
  out->kernel_release = Opt(h.kernel_release(), 128);
  out->nvidia_driver_version = Opt(h.nvidia_driver_version(), 32);
  out->nvidia_module_flavor = OptEnum<crd::NvidiaModuleFlavor>(h.nvidia_module_flavor());
  out->ib_core_flavor = OptEnum<crd::IbCoreFlavor>(h.ib_core_flavor());
  out->rdma_netns_mode = OptEnum<crd::RdmaNetnsMode>(h.rdma_netns_mode());
  std::set<std::string> seen;
  for (const auto& m : h.modules()) {
    if (out->modules.size() >= 64) break;
    if (m.name().empty() || !seen.insert(Clip(m.name(), 64)).second) continue;
    out->modules.push_back({Clip(m.name(), 64), Opt(m.version(), 64), m.loaded()});
  }
  for (const auto& d : h.dev_infiniband()) {
    if (out->dev_infiniband.size() >= 256) break;
    out->dev_infiniband.push_back(Clip(d, 32));
  }
}

crd::RdmaPortFacts PortFacts(const agent::v1::RdmaPort& p) {
  crd::RdmaPortFacts out;
  out.number = p.number();
  out.state = Opt(p.state(), 16);
  out.physical_state = Opt(p.physical_state(), 32);
  out.link_layer = Opt(p.link_layer(), 16);
  out.rate = Opt(p.rate(), 64);
  if (p.active_mtu() > 0) out.active_mtu = p.active_mtu();
  std::set<int32_t> seen;
  for (const auto& g : p.gids()) {
    if (out.gids.size() >= 256) break;
    if (!seen.insert(g.index()).second) continue;
    out.gids.push_back({g.index(), Opt(g.gid(), 39), Opt(g.type(), 16), Opt(g.netdev(), 15)});
  }
  return out;
}

// The agent's ACS answer for one GPU, bounded: bridges only with "yes", at most 8, each a PCI
// address (anything else is dropped, not clipped into another address); an answer that is neither
// "yes" nor "no" is unknown.
void FillAcs(const agent::v1::Gpu& g, crd::GpuFacts* out) {
  if (g.acs_redirect() == "no") out->acs_redirect = false;
  if (g.acs_redirect() != "yes") return;
  out->acs_redirect = true;
  auto& bridges = out->acs_redirect_bridges;
  for (const auto& bdf : g.acs_redirect_bridges()) {
    if (bridges.size() >= 8) break;
    if (IsPciAddress(bdf) && std::find(bridges.begin(), bridges.end(), bdf) == bridges.end())
      bridges.push_back(bdf);
  }
}

// The GPU's path to each NIC, bounded: at most 32, each NIC once and one of the reported devices
// (so a name is never clipped into another), each path one of NCCL's four types.
void FillNicPaths(const agent::v1::Gpu& g, const std::vector<crd::RdmaDeviceFacts>& devices,
                  crd::GpuFacts* out) {
  auto& paths = out->nic_paths;
  for (const auto& p : g.nic_paths()) {
    if (paths.size() >= 32) break;
    const std::string& type = p.path_type();
    if (rails::PathRank(type) < 0) continue;
    const bool known =
        std::any_of(devices.begin(), devices.end(),
                    [&](const crd::RdmaDeviceFacts& d) { return d.name == p.nic(); });
    const bool seen = std::any_of(paths.begin(), paths.end(),
                                  [&](const crd::GpuNicPathFacts& q) { return q.nic == p.nic(); });
    if (known && !seen) paths.push_back({p.nic(), type});
  }
}

// The agent's IOMMU mode in the CRD's words; anything else is unknown (absent).
std::optional<crd::IommuMode> IommuMode(const std::string& reported) {
  if (reported == "off") return crd::IommuMode::kOff;
  if (reported == "passthrough") return crd::IommuMode::kPassthrough;
  if (reported == "translated") return crd::IommuMode::kTranslated;
  return std::nullopt;
}

void FillDevices(const NodeReport& r, crd::RdmaNodeStatus* out) {
  std::set<std::string> names;
  for (const auto& d : r.devices()) {
    if (out->devices.size() >= 32) break;
    const std::string name = Clip(d.name(), 64);
    if (name.empty() || !names.insert(name).second) continue;
    crd::RdmaDeviceFacts f;
    f.name = name;
    f.pci_address = Opt(d.pci_address(), 16);
    f.vendor_id = Opt(d.vendor_id(), 8);
    f.device_id = Opt(d.device_id(), 8);
    f.generation = Opt(d.generation(), 64);
    f.virtual_function = d.virtual_function();
    f.firmware_version = Opt(d.firmware_version(), 64);
    f.node_guid = Opt(d.node_guid(), 32);
    f.dc_supported = d.dc_supported();
    f.numa_node = d.numa_node();
    // A root's name or nothing: anything else is dropped, not clipped into another root.
    if (IsPcieRoot(d.pcie_root())) f.pcie_root = d.pcie_root();
    std::set<int32_t> ports;
    for (const auto& p : d.ports()) {
      if (f.ports.size() >= 4) break;
      if (ports.insert(p.number()).second) f.ports.push_back(PortFacts(p));
    }
    out->devices.push_back(std::move(f));
  }
  std::set<std::string> netdevs;
  for (const auto& n : r.netdevs()) {
    if (out->netdevs.size() >= 128) break;
    const std::string name = Clip(n.name(), 15);
    if (name.empty() || !netdevs.insert(name).second) continue;
    crd::NetDevFacts f;
    f.name = name;
    if (n.mtu() > 0) f.mtu = n.mtu();
    for (const auto& ip : n.ipv4()) {
      if (f.ipv4.size() >= 16) break;
      f.ipv4.push_back(Clip(ip, 18));
    }
    f.rdma_device = Opt(n.rdma_device(), 64);
    if (!n.rdma_device().empty()) f.rdma_port = n.rdma_port();
    f.kind = Opt(n.kind(), 16);
    out->netdevs.push_back(std::move(f));
  }
  std::set<std::string> gpus;
  for (const auto& g : r.gpus()) {
    if (out->gpus.size() >= 16) break;
    const std::string pci = Clip(g.pci_address(), 16);
    if (pci.empty() || !gpus.insert(pci).second) continue;
    crd::GpuFacts f;
    f.pci_address = pci;
    f.device_id = Opt(g.device_id(), 8);
    f.model = Opt(g.model(), 96);
    if (g.bar1_total_bytes() > 0) f.bar1_total_bytes = g.bar1_total_bytes();
    f.bar1_free_bytes = g.bar1_free_bytes();
    f.dma_buf_supported = g.dma_buf_supported();
    f.nearest_nic = Opt(g.nearest_nic(), 64);
    f.path_type = Opt(g.path_type(), 8);
    f.numa_node = g.numa_node();
    FillAcs(g, &f);
    f.iommu = IommuMode(g.iommu());
    // A PCI address or nothing: anything else is dropped, not clipped into another address.
    if (IsPciAddress(g.nearest_nic_via())) f.nearest_nic_via = g.nearest_nic_via();
    FillNicPaths(g, out->devices, &f);
    if (IsPcieRoot(g.pcie_root())) f.pcie_root = g.pcie_root();
    out->gpus.push_back(std::move(f));
  }
}

void FillChecks(const NodeReport& r, crd::RdmaNodeStatus* out) {
  std::set<std::string> ids;
  for (const auto& c : r.checks()) {
    if (out->checks.size() >= 128) break;
    const std::string id = Clip(c.id(), 64);
    if (id.empty() || !ids.insert(id).second) continue;
    out->checks.push_back({id, ToCrd(c.status()), Opt(c.reason(), 128), Opt(c.message(), 1024),
                           Opt(c.remedy(), 1024)});
  }
}

// InfiniBand or Ethernet when every active port agrees, Mixed when they differ, None without one.
crd::LinkLayer LinkLayerOf(const NodeReport& r) {
  std::set<std::string> layers;
  for (const auto& d : r.devices()) {
    for (const auto& p : d.ports()) {
      if (p.state() == "ACTIVE" && !p.link_layer().empty()) layers.insert(p.link_layer());
    }
  }
  if (layers.empty()) return crd::LinkLayer::kNone;
  if (layers.size() > 1) return crd::LinkLayer::kMixed;
  return crd::EnumFromString<crd::LinkLayer>(*layers.begin()).value_or(crd::LinkLayer::kMixed);
}

struct CapabilitySpec {
  const char* capability;  // as the agent names it
  const char* condition;
  const char* asked_by;  // what makes the agent evaluate it
};
constexpr CapabilitySpec kCapabilities[] = {
    {"Gateway", kGatewayCapable, "a GatewayPool"},
    {"GPUDirect", kGPUDirectCapable, "a ClientProfile with transport Auto or GPUDirect"},
    {"HostMemory", kHostMemoryCapable, "a ClientProfile"},
};

std::string ProfilePrefix(const agent::v1::Verdict& v) {
  return v.profile().empty() ? "" : "ClientProfile " + v.profile() + ": ";
}

// What blocked one verdict: the check whose reason the verdict carries.
std::string Blocker(const NodeReport& r, const agent::v1::Verdict& v) {
  for (const auto& c : r.checks()) {
    if (c.reason() == v.reason() && (c.status() == Check::FAIL || c.status() == Check::UNKNOWN)) {
      return c.id() + " " + StatusName(c.status()) + ": " + c.message();
    }
  }
  return "blocked by " + (v.reason().empty() ? std::string("an unnamed check") : v.reason());
}

std::string Unverified(const NodeReport& r) {
  std::string ids;
  for (const auto& c : r.checks()) {
    if (c.status() != Check::UNKNOWN) continue;
    ids += (ids.empty() ? "" : ", ") + c.id();
  }
  return ids;
}

struct VerdictOutcome {
  crd::Verdict verdict;
  crd::ConditionStatus status = crd::ConditionStatus::kUnknown;
  std::string reason;
  std::string message;
};

std::optional<VerdictOutcome> Decide(const NodeReport& r, const CapabilitySpec& spec) {
  std::vector<const agent::v1::Verdict*> all;
  for (const auto& v : r.verdicts()) {
    if (v.capability() == spec.capability) all.push_back(&v);
  }
  if (all.empty()) return std::nullopt;
  const agent::v1::Verdict* capable = nullptr;
  for (const auto* v : all) {
    if (v->capable()) {
      capable = v;
      break;
    }
  }
  VerdictOutcome out;
  const agent::v1::Verdict& lead = capable != nullptr ? *capable : *all.front();
  out.verdict.capable = capable != nullptr ? crd::Capability::kYes : crd::Capability::kNo;
  out.verdict.reason = Opt(lead.reason(), 128);
  if (capable != nullptr) out.verdict.via = Opt(capable->via(), 16);
  out.status = capable != nullptr ? crd::ConditionStatus::kTrue : crd::ConditionStatus::kFalse;
  out.reason = IsConditionReason(lead.reason()) ? lead.reason()
               : capable != nullptr             ? reasons::kVerified
                                                : reasons::kCheckFailed;
  for (const auto* v : all) {
    std::string part = ProfilePrefix(*v);
    if (!v->capable()) {
      part += Blocker(r, *v);
    } else {
      part += "capable";
      if (!v->via().empty()) part += " via " + v->via();
      if (v->reason() == "NotFullyVerified") part += "; not verified: " + Unverified(r);
    }
    out.message += (out.message.empty() ? "" : "; ") + part;
  }
  out.message = Clip(out.message, 32768);
  return out;
}

std::string StaleMessage(Clock::WallTime last_seen, Clock::Duration ttl, bool connected) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(ttl).count();
  return std::string(connected ? "the agent's stream is open but silent"
                               : "the agent is not connected") +
         ": nothing heard since " + FormatRfc3339(last_seen) + ", longer than the " +
         std::to_string(seconds) + "s TTL; the node labels are removed after the grace period";
}

// No report in this process yet (it restarted; the agent reconnects and resends): the facts an
// earlier process wrote stand, unchanged, until the TTL says otherwise.
void KeepPreviousFacts(const StatusInputs& in, const controllers::ConditionSetter& conditions,
                       Clock::WallTime last_seen, bool silent, crd::RdmaNodeStatus& s) {
  s = *in.previous;
  s.observed_generation = in.generation;
  if (!silent) return;
  const bool connected = in.agent && in.agent->connected;
  std::erase_if(s.conditions, [](const crd::Condition& c) { return c.type == kReporting; });
  s.conditions.insert(s.conditions.begin(),
                      conditions.Make(kReporting, crd::ConditionStatus::kFalse,
                                      connected ? reasons::kStale : reasons::kAgentDisconnected,
                                      StaleMessage(last_seen, in.stale_ttl, connected)));
  if (!s.agent) s.agent.emplace();
  s.agent->state = crd::AgentState::kStale;
}

// One verdict condition per capability: the agent's, or Unknown when it did not evaluate it.
void AddCapabilityConditions(const NodeReport& report,
                             const controllers::ConditionSetter& conditions,
                             crd::RdmaNodeStatus& s) {
  for (const auto& spec : kCapabilities) {
    auto outcome = Decide(report, spec);
    if (outcome) {
      s.conditions.push_back(
          conditions.Make(spec.condition, outcome->status, outcome->reason, outcome->message));
    } else {
      s.conditions.push_back(
          conditions.Make(spec.condition, crd::ConditionStatus::kUnknown, reasons::kNotEvaluated,
                          std::string("the agent did not evaluate ") + spec.capability + ": only " +
                              spec.asked_by + " selecting this node asks for it"));
    }
  }
}

}  // namespace

const crd::Condition* FindCondition(const crd::RdmaNodeStatus& status, std::string_view type) {
  return controllers::FindCondition(status.conditions, type);
}

void FillFacts(const NodeReport& report, crd::RdmaNodeStatus* status) {
  status->host.emplace();
  FillHost(report.host(), &*status->host);
  FillDevices(report, status);
  FillChecks(report, status);
  status->link_layer = LinkLayerOf(report);
  crd::Verdicts verdicts;
  for (const auto& spec : kCapabilities) {
    auto outcome = Decide(report, spec);
    if (!outcome) continue;
    if (std::string_view(spec.capability) == "Gateway") verdicts.gateway = outcome->verdict;
    if (std::string_view(spec.capability) == "GPUDirect") verdicts.gpu_direct = outcome->verdict;
    if (std::string_view(spec.capability) == "HostMemory") verdicts.host_memory = outcome->verdict;
  }
  if (verdicts.gateway || verdicts.gpu_direct || verdicts.host_memory) status->verdicts = verdicts;
}

ComputedStatus ComputeRdmaNodeStatus(const StatusInputs& in) {
  ComputedStatus out;
  crd::RdmaNodeStatus& s = out.status;
  const controllers::ConditionSetter conditions(in.previous ? &in.previous->conditions : nullptr,
                                                in.now, in.generation);
  const NodeReport* report = in.agent && in.agent->report ? in.agent->report.get() : nullptr;
  const Clock::WallTime last_seen = in.agent ? in.agent->last_seen : in.known_since;
  const bool silent = in.now - last_seen > in.stale_ttl;
  if (!silent) out.recheck_at = last_seen + in.stale_ttl + std::chrono::seconds(1);

  if (report == nullptr && in.previous != nullptr) {
    KeepPreviousFacts(in, conditions, last_seen, silent, s);
    return out;
  }

  s.observed_generation = in.generation;
  crd::AgentStatus agent;
  if (in.agent && !in.agent->agent_version.empty())
    agent.version = Clip(in.agent->agent_version, 64);
  agent.state = silent ? crd::AgentState::kStale : crd::AgentState::kConnected;

  if (report == nullptr) {
    const bool connected = in.agent && in.agent->connected;
    s.agent = agent;
    s.conditions.push_back(
        conditions.Make(kReporting, crd::ConditionStatus::kFalse, reasons::kNeverReported,
                        connected ? "the agent connected but has not sent a report yet"
                                  : "no agent has reported for this node"));
    return out;
  }

  FillFacts(*report, &s);
  agent.report_hash = Opt(report->content_hash(), 64);
  // The same report resent (reconnect, operator restart) keeps its time: no rewrite for it.
  const bool same_report = in.previous != nullptr && in.previous->agent &&
                           in.previous->agent->report_hash == agent.report_hash &&
                           in.previous->agent->last_report_time.has_value();
  agent.last_report_time = same_report ? in.previous->agent->last_report_time
                                       : std::optional(FormatRfc3339(in.agent->last_report));
  s.agent = agent;

  if (silent) {
    const bool connected = in.agent->connected;
    s.conditions.push_back(
        conditions.Make(kReporting, crd::ConditionStatus::kFalse,
                        connected ? reasons::kStale : reasons::kAgentDisconnected,
                        StaleMessage(last_seen, in.stale_ttl, connected)));
  } else {
    s.conditions.push_back(conditions.Make(
        kReporting, crd::ConditionStatus::kTrue, reasons::kReporting,
        "agent " + (agent.version ? *agent.version : std::string("(unknown version)")) +
            " reports for this node"));
  }
  AddCapabilityConditions(*report, conditions, s);
  return out;
}

}  // namespace rdmastack::rdmanode
