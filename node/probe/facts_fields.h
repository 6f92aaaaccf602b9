#pragma once
// The node facts' field tables (base/field_table.h): each member's name in the agent's JSON
// report (docs/agent.md), in the report's order. The report is written from these tables
// (agents/node-agent/report/json_report.cc) and ReportDriftTest walks them to find a fact the
// agent's NodeReport (agents/proto/agenthub.proto) does not carry. Every member is listed, so a
// member added to facts.h and not here fails to compile (ListsEveryMember); members the report
// leaves out are Unwritten.

#include <string_view>
#include <tuple>

#include "base/field_table.h"
#include "node/probe/facts.h"

namespace rdmastack::node {

using fields::F;
using fields::Unwritten;

inline std::string_view JsonName(Tristate t) {
  return TristateName(t);
}

constexpr auto JsonFields(const ProbeIssue*) {
  using T = ProbeIssue;
  return std::tuple{F("area", &T::area), F("path", &T::path), F("message", &T::message)};
}

constexpr auto JsonFields(const GidEntry*) {
  using T = GidEntry;
  return std::tuple{F("index", &T::index), F("gid", &T::gid), F("type", &T::type),
                    F("netdev", &T::netdev)};
}

constexpr auto JsonFields(const PortCounter*) {
  using T = PortCounter;
  return std::tuple{F("name", &T::name), F("value", &T::value)};
}

constexpr auto JsonFields(const RdmaPort*) {
  using T = RdmaPort;
  return std::tuple{F("number", &T::number),
                    Unwritten("stateCode", &T::state_code),  // the state's number; `state` says it
                    F("state", &T::state),
                    Unwritten("physicalStateCode", &T::phys_state_code),
                    F("physicalState", &T::phys_state),
                    F("linkLayer", &T::link_layer),
                    F("rate", &T::rate),
                    F("lid", &T::lid),
                    F("smLid", &T::sm_lid),
                    F("activeMtu", &T::active_mtu),
                    F("activeMtuSource", &T::active_mtu_source),
                    F("gids", &T::gids),
                    F("counters", &T::counters)};
}

constexpr auto JsonFields(const RdmaDevice*) {
  using T = RdmaDevice;
  return std::tuple{F("name", &T::name),
                    F("pciAddress", &T::pci_address),
                    Unwritten("pciPath", &T::pci_path),  // a path below the root, for probes
                    F("vendorId", &T::vendor_id),
                    F("deviceId", &T::device_id),
                    F("generation", &T::generation),
                    Unwritten("generationRank", &T::generation_rank),  // for the checks
                    F("virtualFunction", &T::virtual_function),
                    F("software", &T::soft),
                    F("firmware", &T::firmware),
                    F("nodeGuid", &T::node_guid),
                    F("hcaType", &T::hca_type),
                    F("numaNode", &T::numa_node),
                    F("pcieRoot", &T::pcie_root),
                    F("uverbs", &T::uverbs),
                    F("dcSupported", &T::dc_supported),
                    F("dmaBufSupported", &T::dmabuf_supported),
                    F("dmaBufDetail", &T::dmabuf_detail),
                    F("dataDirect", &T::data_direct),
                    F("dataDirectPci", &T::data_direct_pci),
                    Unwritten("dataDirectPath", &T::data_direct_path),           // below the root
                    Unwritten("dataDirectNumaNode", &T::data_direct_numa_node),  // for paths
                    F("dataDirectDetail", &T::data_direct_detail),
                    F("ports", &T::ports)};
}

constexpr auto JsonFields(const Ipv4Binding*) {
  using T = Ipv4Binding;
  return std::tuple{F("cidr", &T::cidr), Unwritten("address", &T::address),  // the cidr's address
                    F("gidIndex", &T::gid_index)};
}

constexpr auto JsonFields(const NetDev*) {
  using T = NetDev;
  return std::tuple{F("name", &T::name),
                    F("kind", &T::kind),
                    F("type", &T::type),
                    F("mtu", &T::mtu),
                    Unwritten("address", &T::address),  // not in schema 1
                    F("pciAddress", &T::pci_address),
                    F("master", &T::master),
                    F("lower", &T::lower),
                    F("slaves", &T::slaves),
                    F("activeSlave", &T::active_slave),
                    F("rdmaDevice", &T::rdma_device),
                    F("rdmaPort", &T::rdma_port),
                    F("ipv4", &T::ipv4)};
}

constexpr auto JsonFields(const Module*) {
  using T = Module;
  return std::tuple{F("name", &T::name), F("loaded", &T::loaded), F("version", &T::version),
                    F("taint", &T::taint)};
}

constexpr auto JsonFields(const ModuleFile*) {
  using T = ModuleFile;
  return std::tuple{F("name", &T::name), F("loadedSrcversion", &T::loaded_srcversion),
                    F("path", &T::path), F("fileSrcversion", &T::file_srcversion),
                    F("notRead", &T::not_read)};
}

constexpr auto JsonFields(const KernelFacts*) {
  using T = KernelFacts;
  return std::tuple{F("release", &T::release), F("major", &T::major), F("minor", &T::minor)};
}

constexpr auto JsonFields(const DriverFacts*) {
  using T = DriverFacts;
  return std::tuple{F("ibCoreFlavor", &T::ib_core_flavor),
                    F("ofedVersion", &T::ofed_version),
                    F("ibCoreFlavorSignals", &T::ib_core_flavor_signals),
                    F("peerMemoryApi", &T::peer_memory_api),
                    Unwritten("nvidiaPeermemInstalled", &T::nvidia_peermem_installed),  // schema 1
                    F("nvidiaDriverVersion", &T::nvidia_driver_version),
                    F("nvidiaModuleFlavor", &T::nvidia_module_flavor),
                    F("rdmaNetnsMode", &T::rdma_netns_mode),
                    F("devInfiniband", &T::dev_infiniband),
                    Unwritten("devInfinibandReadable", &T::dev_infiniband_readable),  // for checks
                    F("modules", &T::modules),
                    F("moduleFiles", &T::module_files)};
}

constexpr auto JsonFields(const Gpu*) {
  using T = Gpu;
  return std::tuple{F("pciAddress", &T::pci_address),
                    Unwritten("pciPath", &T::pci_path),  // a path below the root, for probes
                    F("deviceId", &T::device_id),
                    F("model", &T::model),
                    F("architecture", &T::architecture),
                    Unwritten("turingOrNewer", &T::turing_or_newer),  // the architecture says it
                    F("numaNode", &T::numa_node),
                    F("pcieRoot", &T::pcie_root),
                    F("bar1TotalBytes", &T::bar1_total_bytes),
                    F("bar1FreeBytes", &T::bar1_free_bytes),
                    F("bar1Source", &T::bar1_source),
                    F("bar1SysfsBytes", &T::bar1_sysfs_bytes),
                    F("bar1ResourceIndex", &T::bar1_resource_index),
                    F("dmaBufAttribute", &T::dma_buf_attr),
                    F("nearestNic", &T::nearest_nic),
                    F("nearestNicVia", &T::nearest_nic_via),
                    F("pathType", &T::path_type),
                    F("acsRedirect", &T::acs_redirect),
                    F("acsRedirectBridges", &T::acs_redirect_bridges),
                    F("iommu", &T::iommu),
                    F("iommuDetail", &T::iommu_detail)};
}

constexpr auto JsonFields(const DataDirectFunction*) {
  using T = DataDirectFunction;
  return std::tuple{F("pciAddress", &T::pci_address), F("driver", &T::driver)};
}

constexpr auto JsonFields(const GpuNicPath*) {
  using T = GpuNicPath;
  return std::tuple{F("gpu", &T::gpu), F("nic", &T::nic), F("pathType", &T::path_type),
                    F("via", &T::via)};
}

// The report's "facts" object; the root and the issues are written beside it, at the report's
// top.
constexpr auto JsonFields(const NodeFacts*) {
  using T = NodeFacts;
  return std::tuple{
      Unwritten("root", &T::root),         F("kernel", &T::kernel),
      F("drivers", &T::drivers),           F("rdmaDevices", &T::rdma_devices),
      F("netdevs", &T::netdevs),           F("gpus", &T::gpus),
      F("gpuNicPaths", &T::gpu_nic_paths), F("dataDirectFunctions", &T::data_direct_functions),
      F("ipsSource", &T::ips_source),      F("deviceProbeSource", &T::device_probe_source),
      Unwritten("issues", &T::issues)};
}

static_assert(fields::ListsEveryMember<ProbeIssue>(),
              "a member of ProbeIssue has no row in its table");
static_assert(fields::ListsEveryMember<GidEntry>(), "a member of GidEntry has no row in its table");
static_assert(fields::ListsEveryMember<PortCounter>(),
              "a member of PortCounter has no row in its table");
static_assert(fields::ListsEveryMember<RdmaPort>(), "a member of RdmaPort has no row in its table");
static_assert(fields::ListsEveryMember<RdmaDevice>(),
              "a member of RdmaDevice has no row in its table");
static_assert(fields::ListsEveryMember<Ipv4Binding>());
static_assert(fields::ListsEveryMember<NetDev>(), "a member of NetDev has no row in its table");
static_assert(fields::ListsEveryMember<Module>(), "a member of Module has no row in its table");
static_assert(fields::ListsEveryMember<ModuleFile>(),
              "a member of ModuleFile has no row in its table");
static_assert(fields::ListsEveryMember<KernelFacts>(),
              "a member of KernelFacts has no row in its table");
static_assert(fields::ListsEveryMember<DriverFacts>(),
              "a member of DriverFacts has no row in its table");
static_assert(fields::ListsEveryMember<Gpu>(), "a member of Gpu has no row in its table");
static_assert(fields::ListsEveryMember<GpuNicPath>(),
              "a member of GpuNicPath has no row in its table");
static_assert(fields::ListsEveryMember<NodeFacts>(),
              "a member of NodeFacts has no row in its table");

}  // namespace rdmastack::node
