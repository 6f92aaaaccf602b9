// The probe library over the fixture trees: the facts node-detection-spec §11 expects.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "node/checks/checks.h"
#include "node/checks/gpu_checks.h"
#include "node/probe/ip_lookup.h"
#include "node/testing/fixture_util.h"

namespace rdmastack::node {
namespace {

using testing::ProbeFixture;

TEST(ProbeFixtureTest, IpoibBondMapsToActiveSlavePort) {
  NodeFacts f = ProbeFixture("storage-cx6-ib-ipoib-bond0-el8-inbox");
  EXPECT_TRUE(f.issues.empty()) << f.issues.front().path << ": " << f.issues.front().message;
  ASSERT_EQ(f.rdma_devices.size(), 2u);
  EXPECT_EQ(f.rdma_devices[0].pci_address, "0000:3b:00.0");
  EXPECT_EQ(f.rdma_devices[0].generation, "ConnectX-6");
  EXPECT_FALSE(f.rdma_devices[0].virtual_function);
  EXPECT_EQ(f.drivers.ib_core_flavor, "Inbox");
  EXPECT_EQ(f.drivers.rdma_netns_mode, "shared");
  const NetDev* bond = f.FindNetDev("bond0");
  ASSERT_NE(bond, nullptr);
  EXPECT_EQ(bond->kind, "bond");
  EXPECT_EQ(bond->active_slave, "ib0");
  EXPECT_EQ(bond->slaves, (std::vector<std::string>{"ib0", "ib1"}));
  EXPECT_EQ(f.FindNetDev("ib1")->rdma_device, "mlx5_1");  // standby slave
  EXPECT_EQ(f.FindNetDev("ib1")->master, "bond0");
  auto b = FindRdmaPortForIpv4(f, "10.10.0.11");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->netdev, "bond0");
  EXPECT_EQ(b->rdma_device, "mlx5_0");
  EXPECT_EQ(b->port, 1);
  EXPECT_EQ(b->gid_index, 0);
  EXPECT_EQ(b->link_layer, "InfiniBand");
  EXPECT_TRUE(b->port_up);
  EXPECT_EQ(FindRdmaPortForIpv4(f, "10.10.0.99").status().code(), StatusCode::kNotFound);
}

TEST(ProbeFixtureTest, RoceGidIndexFollowsTheNetdevOwningTheAddress) {
  NodeFacts f = ProbeFixture("gateway-roce-v2-gid3-doca");
  EXPECT_EQ(f.drivers.ib_core_flavor, "MOFED");
  EXPECT_EQ(f.drivers.ofed_version, "25.01-0.6.0");
  EXPECT_TRUE(f.drivers.peer_memory_api);
  ASSERT_EQ(f.rdma_devices.size(), 1u);
  EXPECT_EQ(f.rdma_devices[0].generation, "ConnectX-6 Dx");
  EXPECT_EQ(f.rdma_devices[0].numa_node, 1);
  EXPECT_EQ(FindRdmaPortForIpv4(f, "192.168.50.21")->gid_index, 3);
  auto vlan = FindRdmaPortForIpv4(f, "192.168.60.21");
  ASSERT_TRUE(vlan.ok());
  EXPECT_EQ(vlan->netdev, "ens1f0np0.100");
  EXPECT_EQ(vlan->gid_index, 7);
  EXPECT_EQ(f.FindNetDev("ens1f0np0.100")->kind, "vlan");
  EXPECT_EQ(f.FindNetDev("ens1f0np0.100")->lower, "ens1f0np0");
}

TEST(ProbeFixtureTest, A6000PeermemMofed) {
  NodeFacts f = ProbeFixture("gpu-client-rtxa6000-bar1-256m-peermem-mofed");
  EXPECT_EQ(f.drivers.ib_core_flavor, "MOFED");
  EXPECT_EQ(f.drivers.ofed_version, "23.10-1.1.9");
  EXPECT_EQ(f.drivers.nvidia_module_flavor, "Proprietary");
  EXPECT_EQ(f.drivers.nvidia_driver_version, "535.161.08");
  EXPECT_TRUE(f.drivers.Loaded("nvidia_peermem"));
  ASSERT_EQ(f.gpus.size(), 1u);  // the HDMI audio function is not a GPU
  const Gpu& g = f.gpus[0];
  EXPECT_EQ(g.model, "NVIDIA RTX A6000");
  EXPECT_EQ(g.bar1_sysfs_bytes, 256LL << 20);
  EXPECT_EQ(g.bar1_resource_index, 1);
  EXPECT_EQ(g.bar1_free_bytes, 262144000);
  EXPECT_EQ(g.bar1_source, "nvml");
  EXPECT_EQ(g.dma_buf_attr, Tristate::kNo);
  EXPECT_EQ(g.nearest_nic, "mlx5_0");
  EXPECT_EQ(g.path_type, "PIX");
}

TEST(ProbeFixtureTest, H100DmabufOpenInboxWithPersistentName) {
  NodeFacts f = ProbeFixture("gpu-client-h100-dmabuf-open-inbox");
  EXPECT_EQ(f.drivers.ib_core_flavor, "Inbox");
  EXPECT_FALSE(f.drivers.peer_memory_api);
  EXPECT_EQ(f.drivers.nvidia_module_flavor, "Open");
  EXPECT_EQ(f.kernel.major, 6);
  ASSERT_EQ(f.rdma_devices.size(), 1u);
  EXPECT_EQ(f.rdma_devices[0].name, "ibp25s0");
  EXPECT_EQ(f.rdma_devices[0].generation, "ConnectX-7");
  EXPECT_EQ(f.rdma_devices[0].dmabuf_supported, Tristate::kYes);
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].bar1_sysfs_bytes, 128LL << 30);
  EXPECT_EQ(f.gpus[0].path_type, "PIX");
}

TEST(ProbeFixtureTest, AcsRedirectIsReadFromTheBridgesBetweenGpuAndNic) {
  NodeFacts clear = ProbeFixture("gpu-client-h100-dmabuf-open-inbox");
  ASSERT_EQ(clear.gpus.size(), 1u);
  EXPECT_EQ(clear.gpus[0].acs_redirect, Tristate::kNo);
  EXPECT_TRUE(clear.gpus[0].acs_redirect_bridges.empty());

  NodeFacts f = ProbeFixture("gpu-client-h100-acs-redirect");
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].path_type, "PIX");  // the topology alone looks ideal
  EXPECT_EQ(f.gpus[0].acs_redirect, Tristate::kYes);
  EXPECT_EQ(f.gpus[0].acs_redirect_bridges, std::vector<std::string>{"0000:17:01.0"});
  Evaluation ev = Evaluate(f, Requirements{});
  EXPECT_EQ(ev.selected_transport, "HostMemory");
}

TEST(ProbeFixtureTest, IommuModeOfTheGpuAndItsNic) {
  NodeFacts off = ProbeFixture("gpu-client-h100-dmabuf-open-inbox");
  ASSERT_EQ(off.gpus.size(), 1u);
  EXPECT_EQ(off.gpus[0].iommu, "off");  // no iommu_group links

  NodeFacts f = ProbeFixture("gpu-client-h100-iommu-translated");
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].iommu, "translated");
  EXPECT_EQ(f.gpus[0].iommu_detail, "0000:18:00.0 (IOMMU group type DMA-FQ)");
  EXPECT_EQ(Evaluate(f, Requirements{}).selected_transport, "HostMemory");
}

// The module files beside the loaded modules: equal on the peermem node, ib_core and ib_uverbs
// newer on disk after a driver upgrade without a reload (a warning; GPU-direct still works).
TEST(ProbeFixtureTest, PeerMemAbiDriftBetweenLoadedAndOnDiskModules) {
  NodeFacts same = ProbeFixture("gpu-client-h100-peermem-mofed");
  ASSERT_EQ(same.drivers.module_files.size(), 5u);
  for (const ModuleFile& m : same.drivers.module_files) {
    EXPECT_EQ(m.file_srcversion, m.loaded_srcversion) << m.name << ": " << m.not_read;
  }
  EXPECT_EQ(same.drivers.module_files[4].path, "updates/dkms/nvidia-peermem.ko");
  EXPECT_EQ(checks::CheckPeerMemAbi(same).status, CheckStatus::kPass);

  NodeFacts f = ProbeFixture("gpu-client-h100-peermem-abi-drift");
  ASSERT_EQ(f.drivers.module_files.size(), 5u);
  EXPECT_EQ(f.drivers.module_files[0].name, "ib_core");
  EXPECT_EQ(f.drivers.module_files[0].loaded_srcversion, "6B1C0A7D3E9F5A2B4C8D0E1");
  EXPECT_EQ(f.drivers.module_files[0].file_srcversion, "0D5F8E2A7C4B9E1F3A6D8C2");
  const CheckResult r = checks::CheckPeerMemAbi(f);
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_EQ(r.reason, "PeerMemAbiDrift");
  EXPECT_NE(r.message.find("ib_core: loaded srcversion 6B1C0A7D3E9F5A2B4C8D0E1, "
                           "updates/dkms/ib_core.ko on disk 0D5F8E2A7C4B9E1F3A6D8C2"),
            std::string::npos)
      << r.message;
  EXPECT_EQ(r.message.find("nvidia_peermem:"), std::string::npos) << r.message;
  Evaluation ev = Evaluate(f, Requirements{});
  EXPECT_EQ(ev.selected_transport, "GPUDirect");  // it works until the next reload
}

// The DGX H100 shape: eight GPUs, each with its compute NIC under one (flattened Broadcom)
// switch, and four storage ports; what the checks say of it is grouped, not repeated per device.
TEST(ProbeFixtureTest, HgxH100EightGpusEightComputeNics) {
  NodeFacts f = ProbeFixture("gpu-client-hgx-h100-8gpu-8nic");
  ASSERT_EQ(f.gpus.size(), 8u);
  ASSERT_EQ(f.rdma_devices.size(), 12u);
  EXPECT_EQ(f.rdma_devices[2].name, "mlx5_2");  // natural order, not mlx5_10
  EXPECT_EQ(f.rdma_devices[11].name, "mlx5_11");
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"0000:1b:00.0", "mlx5_0"},  {"0000:43:00.0", "mlx5_3"}, {"0000:52:00.0", "mlx5_4"},
      {"0000:61:00.0", "mlx5_5"},  {"0000:9d:00.0", "mlx5_6"}, {"0000:c3:00.0", "mlx5_9"},
      {"0000:d1:00.0", "mlx5_10"}, {"0000:df:00.0", "mlx5_11"}};
  for (size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(f.gpus[i].pci_address, pairs[i].first);
    EXPECT_EQ(f.gpus[i].nearest_nic, pairs[i].second) << pairs[i].first;
    EXPECT_EQ(f.gpus[i].path_type, "PIX") << pairs[i].first;
  }
  Evaluation ev = Evaluate(f, Requirements{});
  EXPECT_EQ(ev.selected_transport, "GPUDirect");
  std::map<std::string, std::string> said;
  for (const CheckResult& c : ev.checks) said[c.id] = c.message;
  EXPECT_EQ(said["rdma.port-state"],
            "up: InfiniBand 400 Gb/sec (4X NDR): mlx5_0/1, mlx5_3/1, mlx5_4/1, mlx5_5/1, "
            "mlx5_6/1, mlx5_9/1, mlx5_10/1, mlx5_11/1; Ethernet 200 Gb/sec (4X HDR): mlx5_1/1, "
            "mlx5_2/1, mlx5_7/1, mlx5_8/1");
  EXPECT_EQ(said["rdma.device-files"], "/dev/infiniband: rdma_cm, issm0-7, umad0-11, uverbs0-11");
  EXPECT_EQ(said["rdma.dc"], "DC transport supported on all 12 devices");
  EXPECT_EQ(
      said["gpu.bar1"].rfind("NVIDIA H100 80GB HBM3 BAR1 128Gi, free 131066Mi: 0000:1b:00.0, ", 0),
      0u)
      << said["gpu.bar1"];
  for (const CheckResult& c : ev.checks) EXPECT_LE(c.message.size(), 1024u) << c.id;
}

// RoCE LAG: one RDMA device for both ports, named for the bond; bond0's address maps to it by
// its GIDs, the first port's netdev by its PCI function, the second port's to nothing.
TEST(ProbeFixtureTest, RoceLagBondMapsToTheBondDevice) {
  NodeFacts f = ProbeFixture("storage-cx6dx-roce-bond-lag");
  EXPECT_TRUE(f.issues.empty()) << f.issues.front().path << ": " << f.issues.front().message;
  ASSERT_EQ(f.rdma_devices.size(), 1u);
  EXPECT_EQ(f.rdma_devices[0].name, "mlx5_bond_0");
  EXPECT_EQ(f.rdma_devices[0].generation, "ConnectX-6 Dx");
  const NetDev* bond = f.FindNetDev("bond0");
  ASSERT_NE(bond, nullptr);
  EXPECT_EQ(bond->kind, "bond");
  EXPECT_EQ(bond->slaves, (std::vector<std::string>{"ens1f0np0", "ens1f1np1"}));
  EXPECT_EQ(bond->rdma_device, "mlx5_bond_0");
  auto b = FindRdmaPortForIpv4(f, "192.168.70.31");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->rdma_device, "mlx5_bond_0");
  EXPECT_EQ(b->gid_index, 3);  // RoCE v2, IPv4-mapped
  EXPECT_EQ(f.FindNetDev("ens1f0np0")->rdma_device, "mlx5_bond_0");
  EXPECT_EQ(f.FindNetDev("ens1f1np1")->rdma_device, "");
  Requirements gateway;
  gateway.role = Role::kGateway;
  gateway.rdma_ip = "192.168.70.31";
  EXPECT_TRUE(Evaluate(f, gateway).ready);
}

TEST(ProbeFixtureTest, H100With64BitBar0AndPxbPath) {
  NodeFacts f = ProbeFixture("gpu-client-h100-peermem-mofed");
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].bar1_resource_index, 2);
  EXPECT_EQ(f.gpus[0].bar1_sysfs_bytes, 128LL << 30);
  EXPECT_EQ(f.gpus[0].path_type, "PXB");
  EXPECT_TRUE(f.drivers.peer_memory_api);  // kallsyms, [ib_uverbs] on 24.x
}

TEST(ProbeFixtureTest, Cx4VfInVm) {
  NodeFacts f = ProbeFixture("gpu-client-cx4-vf-vm");
  ASSERT_EQ(f.rdma_devices.size(), 1u);
  EXPECT_EQ(f.rdma_devices[0].generation, "ConnectX-4 VF");
  EXPECT_TRUE(f.rdma_devices[0].virtual_function);
  EXPECT_EQ(f.rdma_devices[0].generation_rank, 4);
  EXPECT_EQ(f.rdma_devices[0].numa_node, -1);
  EXPECT_EQ(f.gpus[0].path_type, "PHB");
  EXPECT_FALSE(f.gpus[0].turing_or_newer);
}

TEST(ProbeFixtureTest, CrossSocketIsSys) {
  NodeFacts f = ProbeFixture("gpu-client-cross-socket-sys");
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].path_type, "SYS");
}

TEST(ProbeFixtureTest, NoRdmaDevices) {
  NodeFacts f = ProbeFixture("node-without-rdma");
  EXPECT_TRUE(f.rdma_devices.empty());
  EXPECT_TRUE(f.gpus.empty());
  EXPECT_TRUE(f.issues.empty());
  EXPECT_EQ(f.FindNetDev("eth0")->kind, "physical");
  EXPECT_EQ(f.drivers.ib_core_flavor, "");
}

std::vector<std::string> CounterNames(const RdmaPort& p) {
  std::vector<std::string> out;
  for (const auto& c : p.counters) out.push_back(c.name);
  return out;
}

TEST(ProbeFixtureTest, PortCountersInTheKernelsUnits) {
  NodeFacts f = ProbeFixture("storage-cx6-ib-ipoib-bond0-el8-inbox");
  ASSERT_EQ(f.rdma_devices.size(), 2u);
  const RdmaPort& p = f.rdma_devices[0].ports[0];
  // Every counter of the table, in its order; the fixture's other files (port_xmit_packets,
  // duplicate_request, lifespan, ...) are not read.
  EXPECT_EQ(
      CounterNames(p),
      (std::vector<std::string>{"port_xmit_data", "port_rcv_data", "port_xmit_wait", "symbol_error",
                                "link_error_recovery", "link_downed", "port_rcv_errors",
                                "out_of_buffer", "local_ack_timeout_err", "packet_seq_err"}));
  EXPECT_EQ(p.counters[0].value, 184280502836u);  // the file's count, not yet in bytes
}

TEST(ProbeFixtureTest, ADeviceWithoutHwCountersReportsThePortCountersOnly) {
  NodeFacts f = ProbeFixture("gpu-client-cx4-vf-vm");
  ASSERT_EQ(f.rdma_devices.size(), 1u);
  EXPECT_EQ(f.rdma_devices[0].ports[0].counters.size(), 7u);
  EXPECT_TRUE(f.IssuesIn("counters").empty());
}

TEST(ProbeFixtureTest, DownPortKeepsItsLinkHistory) {
  NodeFacts f = ProbeFixture("storage-cx6-ib-port-down");
  ASSERT_EQ(f.rdma_devices.size(), 1u);
  std::map<std::string, uint64_t> by_name;
  for (const auto& c : f.rdma_devices[0].ports[0].counters) by_name[c.name] = c.value;
  EXPECT_EQ(by_name["link_downed"], 3u);
  EXPECT_EQ(by_name["symbol_error"], 17u);
  EXPECT_EQ(by_name["link_error_recovery"], 2u);
}

TEST(ProbeFixtureTest, DownPortStillMapsItsNetdev) {
  NodeFacts f = ProbeFixture("storage-cx6-ib-port-down");
  ASSERT_EQ(f.rdma_devices.size(), 1u);
  EXPECT_FALSE(f.rdma_devices[0].ports[0].Up());
  auto b = FindRdmaPortForIpv4(f, "10.10.0.12");
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->port_up);
}

// Spec P5 variant: without a verbs answer the RoCE active MTU follows the netdev MTU, and 1500
// gives 1024 (RoceMtuLow).
TEST(ProbeFixtureTest, RoceMtuFromNetdevWhenVerbsAreAbsent) {
  namespace fs = std::filesystem;
  const fs::path tmp = fs::temp_directory_path() / ("agent-roce-mtu-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::copy(testing::FixtureDir("gateway-roce-v2-gid3-doca"), tmp,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  ProbeOptions opts;
  opts.root = (tmp / "root").string();
  opts.ips_file = (tmp / "ips.txt").string();
  NodeFacts f = ProbeNode(opts);  // no device prober
  ASSERT_EQ(f.rdma_devices.size(), 1u);
  EXPECT_EQ(f.rdma_devices[0].ports[0].active_mtu, 4096);  // netdev MTU 9000
  EXPECT_EQ(f.rdma_devices[0].ports[0].active_mtu_source, "netdev");

  std::ofstream(tmp / "root/sys/class/net/ens1f0np0/mtu") << "1500\n";
  f = ProbeNode(opts);
  EXPECT_EQ(f.rdma_devices[0].ports[0].active_mtu, 1024);
  Requirements gateway;
  gateway.role = Role::kGateway;
  Evaluation ev = Evaluate(f, gateway);
  bool warned = false;
  for (const auto& c : ev.checks)
    warned = warned || (c.id == "rdma.active-mtu" && c.reason == "RoceMtuLow");
  EXPECT_TRUE(warned);
  EXPECT_TRUE(ev.ready);  // a low MTU is a warning, not a blocker
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace rdmastack::node
