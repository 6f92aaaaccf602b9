#pragma once
// The facts the node agent reads from one host (or fixture tree). Everything here is plain data:
// probes fill it, checks read it. A value that could not be read stays at its "unknown" default
// and the reason lands in NodeFacts::issues with the path that failed, so checks can say Unknown
// instead of guessing.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rdmastack::node {

// Yes / No / not determined. Used for capabilities that need a live probe (verbs, NVML, CUDA).
enum class Tristate { kUnknown, kYes, kNo };
const char* TristateName(Tristate t);  // "unknown" | "yes" | "no"

// A read or parse that failed. `area` groups issues for the checks that depend on them
// ("rdma", "netdev", "gpu", "modules", "kernel", "topology", "devfiles", "ips", "probes",
// "counters").
struct ProbeIssue {
  std::string area;
  std::string path;     // host path as seen by the agent (root-prefixed), or a flag/file name
  std::string message;  // what went wrong, e.g. "not a number: 'abc'"
};

struct GidEntry {
  int index = 0;
  std::string gid;     // uncompressed, as sysfs prints it
  std::string type;    // "IB/RoCE v1" | "RoCE v2" | "" when unreadable
  std::string netdev;  // "" for IB ports and empty slots
};

// One counter of a port as the kernel counts it (node/probe/port_counters.h lists which, and the
// unit of each). Only counters the device has: a device without a file has no entry for it.
struct PortCounter {
  std::string name;  // the file's name: port_xmit_data, out_of_buffer, ...
  uint64_t value = 0;
};

struct RdmaPort {
  int number = 0;
  int state_code = -1;                // 4 = ACTIVE; -1 unknown
  std::string state;                  // ACTIVE | DOWN | INIT | ARMED | ...
  int phys_state_code = -1;           // 5 = LinkUp
  std::string phys_state;             // LinkUp | Polling | Disabled | ...
  std::string link_layer;             // InfiniBand | Ethernet | ""
  std::string rate;                   // "200 Gb/sec (4X HDR)"
  std::string lid;                    // "0x12"
  std::string sm_lid;                 // "0x1"
  std::vector<GidEntry> gids;         // non-zero entries only
  int active_mtu = 0;                 // bytes; 0 unknown
  std::string active_mtu_source;      // "verbs" | "netdev" (RoCE estimate from netdev MTU) | ""
  std::vector<PortCounter> counters;  // in the order of kPortCounters

  bool Up() const { return state_code == 4 && phys_state_code == 5; }
  bool IsInfiniBand() const { return link_layer == "InfiniBand"; }
  bool IsEthernet() const { return link_layer == "Ethernet"; }
};

struct RdmaDevice {
  std::string name;         // mlx5_0, ibp25s0, mlx5_bond_0
  std::string pci_address;  // 0000:3b:00.0; "" without a PCI parent (rxe, SF)
  std::string pci_path;     // resolved sysfs path, relative to the root
  std::string vendor_id;    // 0x15b3
  std::string device_id;    // 0x101b
  std::string generation;   // ConnectX-6, ConnectX-4 VF, ...
  int generation_rank = 0;  // 3=CX-3 4=CX-4 5=CX-5 6=CX-6 7=CX-7 8=CX-8; 0 unknown
  bool virtual_function = false;
  bool soft = false;     // rdma_rxe / siw: no hardware behind it
  std::string firmware;  // 20.38.1002
  std::string node_guid;
  std::string hca_type;  // MT4123
  int numa_node = -1;
  // The PCIe root complex (PcieRoot) of the function the device moves data through: its own, or
  // its Data Direct function's once that is resolved. "" when not below a host bridge.
  std::string pcie_root;
  std::vector<RdmaPort> ports;
  Tristate dc_supported = Tristate::kUnknown;
  Tristate dmabuf_supported = Tristate::kUnknown;  // NIC side: ibv_reg_dmabuf_mr(fd=-1) == EBADF
  std::string dmabuf_detail;                       // errno name or why unknown
  std::string uverbs;                              // uverbsN that serves this device, "" if none
  // ConnectX-8 Data Direct: the side DMA function (PCI 15b3:2100) this device moves data through,
  // as mlx5dv_get_data_direct_sysfs_path names it. kYes: data_direct_pci/path name it; kNo: the
  // provider answered ENODEV (no Data Direct function is bound to this device); kUnknown: not
  // asked or not answered (data_direct_detail says why).
  Tristate data_direct = Tristate::kUnknown;
  std::string data_direct_pci;   // 0000:03:00.1
  std::string data_direct_path;  // resolved sysfs path below the root
  int data_direct_numa_node = -1;
  std::string data_direct_detail;  // errno name, or why unknown; "" when not a question here
};

// A Data Direct PCI function seen in sysfs (vendor 0x15b3, device 0x2100), whichever RDMA device
// it serves.
struct DataDirectFunction {
  std::string pci_address;
  std::string driver;  // the bound driver's name, "" when none is bound
};

// One IPv4 address on a netdev, and the GID rdma_cm would use for it.
struct Ipv4Binding {
  std::string cidr;     // 10.10.0.11/24
  std::string address;  // 10.10.0.11
  int gid_index = -1;   // -1 when no matching GID
};

struct NetDev {
  std::string name;
  std::string kind;  // physical | ipoib | bond | vlan | virtual
  int type = -1;     // ARPHRD: 1 Ethernet, 32 InfiniBand
  int mtu = 0;
  std::string address;              // hardware address
  std::string pci_address;          // from the device link; "" for uppers
  std::string master;               // bond this netdev is enslaved to
  std::string lower;                // VLAN parent
  std::vector<std::string> slaves;  // bond slaves
  std::string active_slave;
  std::vector<Ipv4Binding> ipv4;
  std::string rdma_device;  // RDMA device/port carrying this netdev ("" if none)
  int rdma_port = 0;
};

struct Module {
  std::string name;
  bool loaded = false;
  std::string version;  // /sys/module/<name>/version, "" when absent
  std::string taint;    // /sys/module/<name>/taint
};

// A loaded module beside the file `modprobe` would load for it now (node/probe/module_files.h):
// after a driver upgrade without a reload, their srcversions differ.
struct ModuleFile {
  std::string name;
  std::string loaded_srcversion;  // /sys/module/<name>/srcversion
  std::string path;               // as modules.dep lists it, below lib/modules/<release>
  std::string file_srcversion;    // the file's .modinfo srcversion; "" when not read
  std::string not_read;           // why file_srcversion is "" (compressed, not in modules.dep...)
};

struct KernelFacts {
  std::string release;  // 5.15.0-105-generic
  int major = 0;
  int minor = 0;
};

struct DriverFacts {
  std::vector<Module> modules;  // fixed list of modules the checks care about, in that order
  std::string ib_core_flavor;   // Inbox | MOFED | ""
  std::string ofed_version;     // 23.10-1.1.9 when known
  std::vector<std::string> ib_core_flavor_signals;  // why we decided
  bool peer_memory_api = false;  // ib_register_peer_memory_client in kallsyms or memory_peers
  // nvidia_peermem loaded, or listed in lib/modules/<release>/modules.dep (so `modprobe` can load
  // it); kUnknown when that file is not readable. Not in the JSON report (schema 1).
  Tristate nvidia_peermem_installed = Tristate::kUnknown;
  std::string nvidia_driver_version;
  std::string nvidia_module_flavor;         // Open | Proprietary | ""
  std::string rdma_netns_mode;              // shared | exclusive | ""
  std::vector<std::string> dev_infiniband;  // sorted names under /dev/infiniband
  bool dev_infiniband_readable = false;
  // The loaded modules nvidia_peermem's ABI rests on (ModuleFilesWatched()), each with a
  // srcversion; empty when nvidia_peermem is not loaded.
  std::vector<ModuleFile> module_files;

  const Module* Find(std::string_view name) const;
  bool Loaded(std::string_view name) const;
};

struct Gpu {
  std::string pci_address;
  std::string pci_path;
  std::string device_id;     // 0x2230
  std::string model;         // NVIDIA RTX A6000
  std::string architecture;  // Volta | Turing | Ampere | Ada | Hopper | Blackwell | ""
  bool turing_or_newer = false;
  int numa_node = -1;
  std::string pcie_root;  // PcieRoot of pci_path
  int64_t bar1_sysfs_bytes =
      0;  // size of the framebuffer aperture from the resource file; 0 unknown
  int bar1_resource_index = -1;                // line of the resource file it came from
  int64_t bar1_total_bytes = 0;                // NVML when present, else sysfs
  int64_t bar1_free_bytes = -1;                // NVML; -1 unknown
  std::string bar1_source;                     // nvml | sysfs | ""
  Tristate dma_buf_attr = Tristate::kUnknown;  // CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED
  std::string nearest_nic;                     // RDMA device name
  // The Data Direct function the path to nearest_nic was measured from (its DMA goes there, not
  // through the NIC's own function); "" when the NIC has none.
  std::string nearest_nic_via;
  std::string path_type;  // PIX | PXB | PHB | SYS | "" (NCCL-equivalent, to nearest_nic)
  // PCIe ACS on the bridges between this GPU and nearest_nic (BridgesBetween): kYes when one of
  // them redirects peer-to-peer requests or completions up to the root complex, kNo when none
  // does (or the two share no bridge), kUnknown when a bridge's configuration space could not be
  // read in full (an issue in area "topology" says which).
  Tristate acs_redirect = Tristate::kUnknown;
  std::vector<std::string> acs_redirect_bridges;  // BDFs of the bridges that redirect
  // The IOMMU on this GPU's and nearest_nic's DMA: "off" when neither is in an IOMMU group,
  // "passthrough" when their groups map 1:1 (type identity, or iommu=pt on a kernel without the
  // type file), "translated" when either group translates (DMA, DMA-FQ, unmanaged, blocked), ""
  // when it could not be told (an issue in area "topology" says why).
  std::string iommu;
  std::string iommu_detail;  // the device and group type that made it "translated"
};

// PCIe relation of one GPU to one RDMA device.
struct GpuNicPath {
  std::string gpu;        // PCI address
  std::string nic;        // RDMA device name
  std::string path_type;  // PIX | PXB | PHB | SYS
  std::string via;        // the NIC's Data Direct function the path was measured from, or ""
};

struct NodeFacts {
  std::string root;  // host root the facts were read from
  KernelFacts kernel;
  DriverFacts drivers;
  std::vector<RdmaDevice> rdma_devices;
  std::vector<NetDev> netdevs;
  std::vector<Gpu> gpus;
  std::vector<GpuNicPath> gpu_nic_paths;
  std::vector<DataDirectFunction> data_direct_functions;  // in PCI address order
  std::string ips_source;                                 // getifaddrs | file
  std::string device_probe_source;                        // live | recorded | none
  std::vector<ProbeIssue> issues;

  const RdmaDevice* FindDevice(std::string_view name) const;
  const NetDev* FindNetDev(std::string_view name) const;
  bool HasIssues(std::string_view area) const;
  std::vector<const ProbeIssue*> IssuesIn(std::string_view area) const;
};

}  // namespace rdmastack::node
