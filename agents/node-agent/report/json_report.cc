#include "agents/node-agent/report/json_report.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include "base/json_fields.h"
#include "base/version.h"

namespace rdmastack::agent {
namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

using json::Bool;
using json::Int;
using json::Str;
using json::Strings;

void WriteRequirements(Writer& w, const node::Requirements& r) {
  w.Key("requirements");
  w.StartObject();
  Str(w, "transport", node::TransportName(r.transport));
  Str(w, "memoryRegistration", node::RegistrationName(r.registration));
  Int(w, "maxTransferBytes", r.max_transfer_bytes);
  Str(w, "maxGpuNicDistance", node::PathTypeName(r.max_gpu_nic_distance));
  Int(w, "gidIndex", r.gid_index);
  Str(w, "rdmaIp", r.rdma_ip);
  w.EndObject();
}

void WriteVerdicts(Writer& w, const std::vector<node::Verdict>& verdicts) {
  w.Key("verdicts");
  w.StartArray();
  for (const auto& v : verdicts) {
    w.StartObject();
    Str(w, "capability", v.capability);
    Bool(w, "capable", v.capable);
    Str(w, "reason", v.reason);
    Str(w, "via", v.via);
    Str(w, "message", v.message);
    w.EndObject();
  }
  w.EndArray();
}

void WriteChecks(Writer& w, const std::vector<node::CheckResult>& checks) {
  w.Key("checks");
  w.StartArray();
  for (const auto& c : checks) {
    w.StartObject();
    Str(w, "id", c.id);
    Str(w, "status", node::CheckStatusName(c.status));
    Str(w, "reason", c.reason);
    Str(w, "message", c.message);
    Str(w, "remedy", c.remedy);
    w.EndObject();
  }
  w.EndArray();
}

void WriteDrivers(Writer& w, const node::DriverFacts& d) {
  w.Key("drivers");
  w.StartObject();
  Str(w, "ibCoreFlavor", d.ib_core_flavor);
  Str(w, "ofedVersion", d.ofed_version);
  Strings(w, "ibCoreFlavorSignals", d.ib_core_flavor_signals);
  Bool(w, "peerMemoryApi", d.peer_memory_api);
  Str(w, "nvidiaDriverVersion", d.nvidia_driver_version);
  Str(w, "nvidiaModuleFlavor", d.nvidia_module_flavor);
  Str(w, "rdmaNetnsMode", d.rdma_netns_mode);
  Strings(w, "devInfiniband", d.dev_infiniband);
  w.Key("modules");
  w.StartArray();
  for (const auto& m : d.modules) {
    w.StartObject();
    Str(w, "name", m.name);
    Bool(w, "loaded", m.loaded);
    Str(w, "version", m.version);
    Str(w, "taint", m.taint);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WritePort(Writer& w, const node::RdmaPort& p) {
  w.StartObject();
  Int(w, "number", p.number);
  Str(w, "state", p.state);
  Str(w, "physicalState", p.phys_state);
  Str(w, "linkLayer", p.link_layer);
  Str(w, "rate", p.rate);
  Str(w, "lid", p.lid);
  Str(w, "smLid", p.sm_lid);
  Int(w, "activeMtu", p.active_mtu);
  Str(w, "activeMtuSource", p.active_mtu_source);
  w.Key("gids");
  w.StartArray();
  for (const auto& g : p.gids) {
    w.StartObject();
    Int(w, "index", g.index);
    Str(w, "gid", g.gid);
    Str(w, "type", g.type);
    Str(w, "netdev", g.netdev);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteRdmaDevices(Writer& w, const std::vector<node::RdmaDevice>& devices) {
  w.Key("rdmaDevices");
  w.StartArray();
  for (const auto& d : devices) {
    w.StartObject();
    Str(w, "name", d.name);
    Str(w, "pciAddress", d.pci_address);
    Str(w, "vendorId", d.vendor_id);
    Str(w, "deviceId", d.device_id);
    Str(w, "generation", d.generation);
    Bool(w, "virtualFunction", d.virtual_function);
    Bool(w, "software", d.soft);
    Str(w, "firmware", d.firmware);
    Str(w, "nodeGuid", d.node_guid);
    Str(w, "hcaType", d.hca_type);
    Int(w, "numaNode", d.numa_node);
    Str(w, "uverbs", d.uverbs);
    Str(w, "dcSupported", node::TristateName(d.dc_supported));
    Str(w, "dmaBufSupported", node::TristateName(d.dmabuf_supported));
    Str(w, "dmaBufDetail", d.dmabuf_detail);
    w.Key("ports");
    w.StartArray();
    for (const auto& p : d.ports) WritePort(w, p);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

void WriteNetDevs(Writer& w, const std::vector<node::NetDev>& netdevs) {
  w.Key("netdevs");
  w.StartArray();
  for (const auto& n : netdevs) {
    w.StartObject();
    Str(w, "name", n.name);
    Str(w, "kind", n.kind);
    Int(w, "type", n.type);
    Int(w, "mtu", n.mtu);
    Str(w, "pciAddress", n.pci_address);
    Str(w, "master", n.master);
    Str(w, "lower", n.lower);
    Strings(w, "slaves", n.slaves);
    Str(w, "activeSlave", n.active_slave);
    Str(w, "rdmaDevice", n.rdma_device);
    Int(w, "rdmaPort", n.rdma_port);
    w.Key("ipv4");
    w.StartArray();
    for (const auto& b : n.ipv4) {
      w.StartObject();
      Str(w, "cidr", b.cidr);
      Int(w, "gidIndex", b.gid_index);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

void WriteGpus(Writer& w, const node::NodeFacts& f) {
  w.Key("gpus");
  w.StartArray();
  for (const auto& g : f.gpus) {
    w.StartObject();
    Str(w, "pciAddress", g.pci_address);
    Str(w, "deviceId", g.device_id);
    Str(w, "model", g.model);
    Str(w, "architecture", g.architecture);
    Int(w, "numaNode", g.numa_node);
    Int(w, "bar1TotalBytes", g.bar1_total_bytes);
    Int(w, "bar1FreeBytes", g.bar1_free_bytes);
    Str(w, "bar1Source", g.bar1_source);
    Int(w, "bar1SysfsBytes", g.bar1_sysfs_bytes);
    Int(w, "bar1ResourceIndex", g.bar1_resource_index);
    Str(w, "dmaBufAttribute", node::TristateName(g.dma_buf_attr));
    Str(w, "nearestNic", g.nearest_nic);
    Str(w, "pathType", g.path_type);
    w.EndObject();
  }
  w.EndArray();
  w.Key("gpuNicPaths");
  w.StartArray();
  for (const auto& p : f.gpu_nic_paths) {
    w.StartObject();
    Str(w, "gpu", p.gpu);
    Str(w, "nic", p.nic);
    Str(w, "pathType", p.path_type);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string RenderJson(const node::NodeFacts& facts, const node::Evaluation& ev) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  Int(w, "schemaVersion", kReportSchemaVersion);
  Str(w, "agentVersion", kVersion);
  Str(w, "root", facts.root);
  Str(w, "role", node::RoleName(ev.requirements.role));
  WriteRequirements(w, ev.requirements);
  Bool(w, "ready", ev.ready);
  Str(w, "transport", ev.selected_transport);
  WriteVerdicts(w, ev.verdicts);
  WriteChecks(w, ev.checks);
  w.Key("facts");
  w.StartObject();
  w.Key("kernel");
  w.StartObject();
  Str(w, "release", facts.kernel.release);
  Int(w, "major", facts.kernel.major);
  Int(w, "minor", facts.kernel.minor);
  w.EndObject();
  WriteDrivers(w, facts.drivers);
  WriteRdmaDevices(w, facts.rdma_devices);
  WriteNetDevs(w, facts.netdevs);
  WriteGpus(w, facts);
  Str(w, "ipsSource", facts.ips_source);
  Str(w, "deviceProbeSource", facts.device_probe_source);
  w.EndObject();
  w.Key("issues");
  w.StartArray();
  for (const auto& i : facts.issues) {
    w.StartObject();
    Str(w, "area", i.area);
    Str(w, "path", i.path);
    Str(w, "message", i.message);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

}  // namespace rdmastack::agent
