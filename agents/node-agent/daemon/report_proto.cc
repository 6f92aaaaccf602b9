#include "agents/node-agent/daemon/report_proto.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <map>

#include "base/sha256.h"
#include "base/version.h"
#include "node/checks/gpu_nic_paths.h"

namespace rdmastack::agent {
namespace {

using v1 = ::rdmastack::agent::v1::Check;

v1::Status ToProto(node::CheckStatus s) {
  switch (s) {
    case node::CheckStatus::kPass: return v1::PASS;
    case node::CheckStatus::kWarn: return v1::WARN;
    case node::CheckStatus::kFail: return v1::FAIL;
    case node::CheckStatus::kUnknown: break;
  }
  return v1::UNKNOWN;
}

void FillHost(const node::NodeFacts& f, agent::v1::HostInfo* h) {
  h->set_kernel_release(f.kernel.release);
  h->set_nvidia_driver_version(f.drivers.nvidia_driver_version);
  h->set_nvidia_module_flavor(f.drivers.nvidia_module_flavor);
  h->set_ib_core_flavor(f.drivers.ib_core_flavor);
  h->set_rdma_netns_mode(f.drivers.rdma_netns_mode);
  for (const auto& m : f.drivers.modules) {
    auto* pm = h->add_modules();
    pm->set_name(m.name);
    pm->set_version(m.version);
    pm->set_loaded(m.loaded);
  }
  for (const auto& d : f.drivers.dev_infiniband) h->add_dev_infiniband(d);
}

void FillDevices(const node::NodeFacts& f, agent::v1::NodeReport* r) {
  for (const auto& d : f.rdma_devices) {
    auto* pd = r->add_devices();
    pd->set_name(d.name);
    pd->set_pci_address(d.pci_address);
    pd->set_vendor_id(d.vendor_id);
    pd->set_device_id(d.device_id);
    pd->set_generation(d.generation);
    pd->set_virtual_function(d.virtual_function);
    pd->set_firmware_version(d.firmware);
    pd->set_node_guid(d.node_guid);
    pd->set_dc_supported(d.dc_supported == node::Tristate::kYes);
    pd->set_numa_node(d.numa_node);
    pd->set_pcie_root(d.pcie_root);
    for (const auto& p : d.ports) {
      auto* pp = pd->add_ports();
      pp->set_number(p.number);
      pp->set_state(p.state);
      pp->set_physical_state(p.phys_state);
      pp->set_link_layer(p.link_layer);
      pp->set_rate(p.rate);
      pp->set_active_mtu(p.active_mtu);
      for (const auto& g : p.gids) {
        auto* pg = pp->add_gids();
        pg->set_index(g.index);
        pg->set_gid(g.gid);
        pg->set_type(g.type);
        pg->set_netdev(g.netdev);
      }
    }
  }
  for (const auto& n : f.netdevs) {
    auto* pn = r->add_netdevs();
    pn->set_name(n.name);
    pn->set_mtu(n.mtu);
    for (const auto& b : n.ipv4) pn->add_ipv4(b.cidr);
    pn->set_rdma_device(n.rdma_device);
    pn->set_rdma_port(n.rdma_port);
    pn->set_kind(n.kind);
  }
  for (const auto& g : f.gpus) {
    auto* pg = r->add_gpus();
    pg->set_pci_address(g.pci_address);
    pg->set_device_id(g.device_id);
    pg->set_model(g.model);
    pg->set_bar1_total_bytes(g.bar1_total_bytes);
    pg->set_bar1_free_bytes(g.bar1_free_bytes);
    pg->set_dma_buf_supported(g.dma_buf_attr == node::Tristate::kYes);
    pg->set_nearest_nic(g.nearest_nic);
    pg->set_path_type(g.path_type);
    pg->set_numa_node(g.numa_node);
    pg->set_acs_redirect(node::TristateName(g.acs_redirect));
    for (const auto& bdf : g.acs_redirect_bridges) pg->add_acs_redirect_bridges(bdf);
    pg->set_iommu(g.iommu);
    pg->set_nearest_nic_via(g.nearest_nic_via);
    pg->set_pcie_root(g.pcie_root);
    for (const node::GpuNicPath* path : node::checks::PathsFrom(f, g.pci_address)) {
      auto* pp = pg->add_nic_paths();
      pp->set_nic(path->nic);
      pp->set_path_type(path->path_type);
    }
  }
}

// Fail is worst, then Unknown, Warn, Pass.
int Severity(node::CheckStatus s) {
  switch (s) {
    case node::CheckStatus::kFail: return 3;
    case node::CheckStatus::kUnknown: return 2;
    case node::CheckStatus::kWarn: return 1;
    case node::CheckStatus::kPass: break;
  }
  return 0;
}

std::string EvaluationName(const std::string& profile) {
  return profile.empty() ? "gateway" : profile;
}

std::string DeterministicSha256(const google::protobuf::MessageLite& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream raw(&bytes);
    google::protobuf::io::CodedOutputStream out(&raw);
    out.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&out);
  }
  return Sha256Hex(bytes);
}

}  // namespace

std::vector<node::CheckResult> MergeChecks(const std::vector<ProfileEvaluation>& evaluations) {
  struct Seen {
    node::CheckResult merged;
    std::vector<std::pair<std::string, node::CheckResult>> by_evaluation;
  };
  std::vector<std::string> order;
  std::map<std::string, Seen> by_id;
  for (const auto& pe : evaluations) {
    for (const auto& c : pe.evaluation.checks) {
      auto [it, fresh] = by_id.try_emplace(c.id);
      if (fresh) order.push_back(c.id);
      it->second.by_evaluation.emplace_back(pe.profile, c);
    }
  }
  std::vector<node::CheckResult> out;
  for (const auto& id : order) {
    const auto& results = by_id[id].by_evaluation;
    const bool all_same = std::all_of(results.begin(), results.end(), [&](const auto& r) {
      return r.second.status == results.front().second.status &&
             r.second.reason == results.front().second.reason &&
             r.second.message == results.front().second.message;
    });
    if (all_same) {
      out.push_back(results.front().second);
      continue;
    }
    // The requirements differ in what they ask (transfer size, distance, GID index): the worst
    // result stands for the check, and the message keeps what each requirement found.
    node::CheckResult worst = results.front().second;
    for (const auto& [profile, r] : results) {
      if (Severity(r.status) > Severity(worst.status)) worst = r;
    }
    std::string message;
    for (const auto& [profile, r] : results) {
      message += (message.empty() ? "" : "; ") + EvaluationName(profile) + ": " +
                 node::CheckStatusName(r.status) + " " + r.message;
    }
    worst.message = std::move(message);
    out.push_back(std::move(worst));
  }
  return out;
}

agent::v1::NodeReport BuildNodeReport(const node::NodeFacts& facts,
                                      const std::vector<ProfileEvaluation>& evaluations,
                                      const std::string& node_name) {
  agent::v1::NodeReport r;
  r.set_node_name(node_name);
  r.set_agent_version(kVersion);
  FillHost(facts, r.mutable_host());
  FillDevices(facts, &r);
  for (const auto& merged : MergeChecks(evaluations)) {
    auto* pc = r.add_checks();
    pc->set_id(merged.id);
    pc->set_status(ToProto(merged.status));
    pc->set_reason(merged.reason);
    pc->set_message(merged.message);
    pc->set_remedy(merged.remedy);
  }
  for (const auto& pe : evaluations) {
    for (const auto& v : pe.evaluation.verdicts) {
      auto* pv = r.add_verdicts();
      pv->set_capability(v.capability);
      pv->set_capable(v.capable);
      pv->set_reason(v.reason);
      pv->set_via(v.via);
      pv->set_profile(pe.profile);
    }
  }
  r.set_content_hash(ContentHash(r));
  return r;
}

std::string ContentHash(const agent::v1::NodeReport& report) {
  agent::v1::NodeReport copy = report;
  copy.clear_content_hash();
  copy.clear_probed_unix_millis();
  return DeterministicSha256(copy);
}

agent::v1::PortCounters BuildPortCounters(const node::NodeFacts& facts) {
  agent::v1::PortCounters out;
  for (const auto& d : facts.rdma_devices) {
    for (const auto& p : d.ports) {
      if (p.counters.empty()) continue;
      auto* set = out.add_ports();
      set->set_device(d.name);
      set->set_port(p.number);
      for (const auto& c : p.counters) {
        auto* pc = set->add_counters();
        pc->set_name(c.name);
        pc->set_value(c.value);
      }
    }
  }
  return out;
}

std::string CountersHash(const agent::v1::PortCounters& counters) {
  agent::v1::PortCounters copy = counters;
  copy.clear_sampled_unix_millis();
  return DeterministicSha256(copy);
}

std::vector<std::pair<std::string, node::Requirements>> RequirementsFromHub(
    const agent::v1::Requirements& hub, node::Role default_role) {
  std::vector<std::pair<std::string, node::Requirements>> out;
  if (hub.gateway()) {
    node::Requirements r;
    r.role = node::Role::kGateway;
    out.emplace_back("", r);
  }
  for (const auto& c : hub.clients()) {
    node::Requirements r;
    r.role = node::Role::kClient;
    if (auto t = node::ParseTransport(c.transport()); t.ok()) r.transport = *t;
    if (auto m = node::ParseRegistration(c.memory_registration()); m.ok()) r.registration = *m;
    r.max_transfer_bytes = std::max<int64_t>(0, c.max_transfer_bytes());
    node::ParsePathType(c.max_gpu_nic_distance(), &r.max_gpu_nic_distance);
    r.gid_index = c.gid_index();
    out.emplace_back(c.profile(), r);
  }
  if (out.empty()) {
    node::Requirements r;
    r.role = default_role;
    out.emplace_back("", r);
  }
  return out;
}

}  // namespace rdmastack::agent
