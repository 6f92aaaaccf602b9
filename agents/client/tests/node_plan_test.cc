// The node decision over the node agent's fixture trees (tests/fixtures/nodes), probed the way
// `rdmastack-agent check --root P/root --ips-file P/ips.txt --probes-file P/probes.txt` does.
#include "agents/client/node_plan.h"

#include <gtest/gtest.h>

#include "node/checks/checks.h"
#include "node/testing/fixture_util.h"

namespace rdmastack::client {
namespace {

using node::testing::ProbeFixture;

node::Requirements Client(node::Transport t = node::Transport::kAuto,
                          node::Registration r = node::Registration::kAuto,
                          int64_t max_transfer = 192LL << 20, int gid_index = -1) {
  node::Requirements req;
  req.role = node::Role::kClient;
  req.transport = t;
  req.registration = r;
  req.max_transfer_bytes = max_transfer;
  req.gid_index = gid_index;
  return req;
}

TEST(NodePlan, OpenModuleOnNewKernelUsesDmaBuf) {
  const NodePlan plan = PlanNode(ProbeFixture("gpu-client-h100-dmabuf-open-inbox"), Client());
  ASSERT_TRUE(plan.capable) << plan.message;
  EXPECT_EQ(plan.transport, "GPUDirect");
  EXPECT_EQ(plan.registration, "DMABuf");
  EXPECT_EQ(plan.rdma_device, "ibp25s0");
  EXPECT_EQ(plan.rdma_devices, std::vector<std::string>{"ibp25s0"});
  EXPECT_EQ(plan.gid_index, 0);  // native InfiniBand
  EXPECT_TRUE(plan.reason.empty());
}

// An HGX H100: GPU-direct lists the NIC nearest each GPU, in GPU order; a NIC no GPU is near is
// left out (cuFile would otherwise route some GPU's traffic over the CPU).
TEST(NodePlan, GpuDirectListsTheNicNearestEachGpu) {
  node::NodeFacts facts = ProbeFixture("gpu-client-hgx-h100-8gpu-8nic");
  NodePlan plan = PlanNode(facts, Client());
  ASSERT_TRUE(plan.capable) << plan.message;
  EXPECT_EQ(plan.transport, "GPUDirect");
  EXPECT_EQ(plan.rdma_devices,
            (std::vector<std::string>{"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9",
                                      "mlx5_10", "mlx5_11"}));
  EXPECT_EQ(plan.gid_index, 0);
  // GPUs 1..7 moved under mlx5_3's switch: each takes it.
  for (auto& p : facts.gpu_nic_paths) {
    if (p.gpu == facts.gpus.front().pci_address) continue;
    p.path_type = p.nic == "mlx5_3" ? "PIX" : "SYS";
  }
  plan = PlanNode(facts, Client());
  ASSERT_TRUE(plan.capable) << plan.message;
  EXPECT_EQ(plan.rdma_devices, (std::vector<std::string>{"mlx5_0", "mlx5_3"}));
  // Host memory has no GPU to be near: every device at the GID index.
  plan = PlanNode(facts, Client(node::Transport::kHostMemory));
  EXPECT_EQ(plan.rdma_devices.size(), 8u);
}

// The HGX node's storage ports (mlx5_1/2 on socket 0, mlx5_7/8 on socket 1) reach a pool on the
// storage networks; its compute NICs do not. Each GPU then takes its nearest storage port, which
// is across the CPU: too far for a PXB profile.
TEST(NodePlan, OnThePoolsNetworksEachGpuTakesItsNearestNicThere) {
  const node::NodeFacts facts = ProbeFixture("gpu-client-hgx-h100-8gpu-8nic");
  const std::vector<rails::RailNetwork> storage = {{"a", "198.18.0.0/24"}, {"b", "198.18.2.0/24"}};
  node::Requirements sys = Client();
  sys.max_gpu_nic_distance = node::PathType::kSys;
  NodePlan plan = PlanNode(facts, sys, storage);
  ASSERT_TRUE(plan.capable) << plan.message;
  EXPECT_TRUE(plan.on_rails);
  EXPECT_EQ(plan.transport, "GPUDirect");
  EXPECT_EQ(plan.rdma_devices, (std::vector<std::string>{"mlx5_1", "mlx5_7"}));
  ASSERT_EQ(plan.gpu_rails.size(), 8u);
  EXPECT_EQ(plan.gpu_rails[0].nic, "mlx5_1");
  EXPECT_EQ(plan.gpu_rails[0].rail, "a");
  EXPECT_EQ(plan.gpu_rails[7].nic, "mlx5_7");
  EXPECT_EQ(plan.gpu_rails[7].rail, "b");
  EXPECT_EQ(plan.gpu_rails[7].path_type, plan.gpu_rails[0].path_type);
  EXPECT_NE(plan.gid_index, 0) << "RoCE v2 GID of the storage port's IPv4";
  EXPECT_EQ(plan.rails, (std::set<std::string>{"a", "b"}));

  // maxGpuNicDistance PXB: Auto falls back to host memory on the storage ports, GPUDirect is
  // refused, naming the GPU and its NIC.
  plan = PlanNode(facts, Client(), storage);
  ASSERT_TRUE(plan.capable) << plan.message;
  EXPECT_EQ(plan.transport, "HostMemory");
  EXPECT_EQ(plan.rdma_devices, (std::vector<std::string>{"mlx5_1", "mlx5_7"}));
  EXPECT_NE(plan.note.find("mlx5_1"), std::string::npos) << plan.note;
  plan = PlanNode(facts, Client(node::Transport::kGpuDirect), storage);
  EXPECT_FALSE(plan.capable);
  EXPECT_EQ(plan.reason, "GpuNicTooFar");
  EXPECT_NE(plan.message.find("-> mlx5_1"), std::string::npos) << plan.message;
  EXPECT_NE(plan.message.find("rail a, 198.18.0.0/24"), std::string::npos) << plan.message;

  // A pool on the compute rails: the eight compute NICs, as without networks.
  plan = PlanNode(facts, Client(), {{"", "10.40.0.0/13"}});
  ASSERT_TRUE(plan.capable) << plan.message;
  EXPECT_TRUE(plan.on_rails);
  EXPECT_EQ(plan.transport, "GPUDirect");
  EXPECT_EQ(plan.rdma_devices, PlanNode(facts, Client()).rdma_devices);
  EXPECT_EQ(plan.rdma_devices.size(), 8u);
  // Host memory lists only what reaches the pool.
  plan = PlanNode(facts, Client(node::Transport::kHostMemory), {{"", "198.18.2.0/23"}});
  EXPECT_EQ(plan.rdma_devices, (std::vector<std::string>{"mlx5_7", "mlx5_8"}));
  EXPECT_TRUE(plan.rails.empty()) << "a network without a rail name";
  // Networks no NIC is on: the pool is reached through routing, nothing is filtered.
  plan = PlanNode(facts, Client(), {{"", "172.16.0.0/12"}});
  EXPECT_FALSE(plan.on_rails);
  EXPECT_EQ(plan.transport, "GPUDirect");
  EXPECT_EQ(plan.rdma_devices.size(), 8u);
}

TEST(NodePlan, ProprietaryModuleWithPeerMemLoadedUsesPeerMemAt192Mi) {
  const NodePlan plan = PlanNode(ProbeFixture("gpu-client-rtxa6000-bar1-256m-peermem-mofed"),
                                 Client(node::Transport::kGpuDirect));
  ASSERT_TRUE(plan.capable) << plan.message;
  EXPECT_EQ(plan.transport, "GPUDirect");
  EXPECT_EQ(plan.registration, "PeerMem");
  EXPECT_EQ(plan.rdma_device, "mlx5_0");
  EXPECT_EQ(plan.gid_index, 0);
}

TEST(NodePlan, TransfersThatDoNotFitBar1MakeTheNodeNotCapable) {
  // The field report: on the A6000's 256 MiB BAR1, 224 MiB transfers failed.
  const NodePlan plan =
      PlanNode(ProbeFixture("gpu-client-rtxa6000-bar1-256m-peermem-mofed"),
               Client(node::Transport::kGpuDirect, node::Registration::kAuto, 224LL << 20));
  EXPECT_FALSE(plan.capable);
  EXPECT_EQ(plan.reason, "Bar1TooSmall");
  EXPECT_EQ(plan.transport, "");
  EXPECT_EQ(plan.message.rfind("GPUDirect: Bar1TooSmall: gpu.bar1: ", 0), 0u) << plan.message;
  EXPECT_NE(plan.message.find("224Mi"), std::string::npos) << plan.message;
}

TEST(NodePlan, AutoFallsBackToHostMemoryWhenGpuDirectCannot) {
  const NodePlan plan =
      PlanNode(ProbeFixture("gpu-client-rtxa6000-bar1-256m-peermem-mofed"),
               Client(node::Transport::kAuto, node::Registration::kAuto, 224LL << 20));
  ASSERT_TRUE(plan.capable) << plan.message;
  EXPECT_EQ(plan.transport, "HostMemory");
  EXPECT_EQ(plan.registration, "");
}

TEST(NodePlan, NodeWithoutRdmaIsNotCapable) {
  for (auto t :
       {node::Transport::kAuto, node::Transport::kHostMemory, node::Transport::kGpuDirect}) {
    const NodePlan plan = PlanNode(ProbeFixture("node-without-rdma"), Client(t));
    EXPECT_FALSE(plan.capable);
    EXPECT_EQ(plan.reason, "NoRdmaDevice");
    EXPECT_NE(plan.message.find("rdma.devices: no RDMA device"), std::string::npos) << plan.message;
    EXPECT_TRUE(plan.rdma_devices.empty());
    EXPECT_EQ(plan.gid_index, -1);
  }
}

TEST(NodePlan, RoceUsesTheRoceV2GidOfAnIpv4) {
  // mlx5_0/1 has RoCE v2 GID 3 for 192.168.50.21 (ens1f0np0) and GID 7 for the VLAN's address.
  const NodePlan plan = PlanNode(ProbeFixture("gateway-roce-v2-gid3-doca"), Client());
  ASSERT_TRUE(plan.capable) << plan.message;
  EXPECT_EQ(plan.transport, "HostMemory");  // no GPU
  EXPECT_EQ(plan.rdma_device, "mlx5_0");
  EXPECT_EQ(plan.gid_index, 3);

  const NodePlan vlan =
      PlanNode(ProbeFixture("gateway-roce-v2-gid3-doca"),
               Client(node::Transport::kAuto, node::Registration::kAuto, 192LL << 20, 7));
  ASSERT_TRUE(vlan.capable) << vlan.message;
  EXPECT_EQ(vlan.gid_index, 7);

  const NodePlan none =
      PlanNode(ProbeFixture("gateway-roce-v2-gid3-doca"),
               Client(node::Transport::kAuto, node::Registration::kAuto, 192LL << 20, 5));
  EXPECT_FALSE(none.capable);
  EXPECT_EQ(none.reason, "NoUsableGid");
}

TEST(NodePlan, AskingForPeerMemWhereItIsNotLoadedNamesTheReason) {
  const NodePlan plan = PlanNode(ProbeFixture("gpu-client-h100-dmabuf-open-inbox"),
                                 Client(node::Transport::kGpuDirect, node::Registration::kPeerMem));
  EXPECT_FALSE(plan.capable);
  EXPECT_EQ(plan.reason, "PeerMemNotLoaded");
  EXPECT_EQ(plan.message.rfind("GPUDirect: PeerMemNotLoaded: gpu.peermem: ", 0), 0u)
      << plan.message;
}

// The A6000 node with nvidia_peermem unloaded, as facts: what the client decides about loading.
node::NodeFacts A6000WithoutPeerMem(node::Tristate installed) {
  node::NodeFacts facts = ProbeFixture("gpu-client-rtxa6000-bar1-256m-peermem-mofed");
  for (auto& m : facts.drivers.modules) {
    if (m.name == "nvidia_peermem") m.loaded = false;
  }
  facts.drivers.nvidia_peermem_installed = installed;
  return facts;
}

TEST(PeerMemLoad, LoadsOnlyWhenAllowedNeededNotLoadedAndInstalled) {
  const node::Requirements req = Client(node::Transport::kGpuDirect);
  {
    const node::NodeFacts f = A6000WithoutPeerMem(node::Tristate::kYes);
    const PeerMemLoad d = DecidePeerMemLoad(f, node::Evaluate(f, req), true);
    EXPECT_TRUE(d.load) << d.why;
    EXPECT_FALSE(DecidePeerMemLoad(f, node::Evaluate(f, req), false).load);
  }
  {
    const node::NodeFacts f = A6000WithoutPeerMem(node::Tristate::kNo);
    const PeerMemLoad d = DecidePeerMemLoad(f, node::Evaluate(f, req), true);
    EXPECT_FALSE(d.load);
    EXPECT_NE(d.why.find("not installed for kernel 5.15.0-105-generic"), std::string::npos)
        << d.why;
  }
  EXPECT_FALSE(DecidePeerMemLoad(A6000WithoutPeerMem(node::Tristate::kUnknown),
                                 node::Evaluate(A6000WithoutPeerMem(node::Tristate::kUnknown), req),
                                 true)
                   .load);
  {  // Loaded already: nothing to do.
    const node::NodeFacts f = ProbeFixture("gpu-client-rtxa6000-bar1-256m-peermem-mofed");
    EXPECT_FALSE(DecidePeerMemLoad(f, node::Evaluate(f, req), true).load);
  }
  {  // HostMemory never needs it.
    const node::NodeFacts f = A6000WithoutPeerMem(node::Tristate::kYes);
    EXPECT_FALSE(
        DecidePeerMemLoad(f, node::Evaluate(f, Client(node::Transport::kHostMemory)), true).load);
  }
}

TEST(PeerMemLoad, AutoOnlyWantsPeerMemWhereDmaBufDoesNotWork) {
  node::NodeFacts dmabuf = ProbeFixture("gpu-client-h100-dmabuf-open-inbox");
  dmabuf.drivers.nvidia_peermem_installed = node::Tristate::kYes;
  const node::Evaluation auto_ev = node::Evaluate(dmabuf, Client());
  EXPECT_FALSE(WouldUsePeerMem(dmabuf, auto_ev));
  EXPECT_FALSE(DecidePeerMemLoad(dmabuf, auto_ev, true).load);
  // Asked for explicitly, the same node would load it.
  const node::Evaluation peermem_ev =
      node::Evaluate(dmabuf, Client(node::Transport::kGpuDirect, node::Registration::kPeerMem));
  EXPECT_TRUE(WouldUsePeerMem(dmabuf, peermem_ev));
  EXPECT_TRUE(DecidePeerMemLoad(dmabuf, peermem_ev, true).load);
  // The A6000 (proprietary module: no dma-buf) on Auto.
  const node::NodeFacts a6000 = A6000WithoutPeerMem(node::Tristate::kYes);
  EXPECT_TRUE(DecidePeerMemLoad(a6000, node::Evaluate(a6000, Client()), true).load);
}

}  // namespace
}  // namespace rdmastack::client
