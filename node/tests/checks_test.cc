// Checks and verdicts as pure functions over hand-built NodeFacts.
#include "node/checks/checks.h"

#include <gtest/gtest.h>

#include "node/checks/check_builder.h"
#include "node/checks/gpu_checks.h"
#include "node/checks/rdma_checks.h"

namespace rdmastack::node {
namespace {

const CheckResult* Find(const Evaluation& ev, const std::string& id) {
  for (const auto& c : ev.checks) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

const Verdict* FindVerdict(const Evaluation& ev, const std::string& cap) {
  for (const auto& v : ev.verdicts) {
    if (v.capability == cap) return &v;
  }
  return nullptr;
}

// A healthy IB GPU node: ConnectX-7, open driver on 6.8, H100 next to the NIC.
NodeFacts HealthyIbGpuNode() {
  NodeFacts f;
  f.root = "/";
  f.kernel = {"6.8.0-45-generic", 6, 8};
  for (const char* m : {"ib_core", "ib_uverbs", "rdma_ucm", "mlx5_core", "nvidia"}) {
    f.drivers.modules.push_back({m, true, "", ""});
  }
  f.drivers.modules.push_back({"nvidia_peermem", false, "", ""});
  f.drivers.ib_core_flavor = "Inbox";
  f.drivers.nvidia_driver_version = "570.124.06";
  f.drivers.nvidia_module_flavor = "Open";
  f.drivers.dev_infiniband = {"rdma_cm", "umad0", "uverbs0"};
  f.drivers.dev_infiniband_readable = true;
  RdmaDevice d;
  d.name = "mlx5_0";
  d.pci_address = "0000:19:00.0";
  d.generation = "ConnectX-7";
  d.generation_rank = 7;
  d.uverbs = "uverbs0";
  d.dc_supported = Tristate::kYes;
  d.dmabuf_supported = Tristate::kYes;
  d.dmabuf_detail = "EBADF";
  RdmaPort p;
  p.number = 1;
  p.state_code = 4;
  p.state = "ACTIVE";
  p.phys_state_code = 5;
  p.phys_state = "LinkUp";
  p.link_layer = "InfiniBand";
  p.lid = "0x5";
  p.sm_lid = "0x1";
  p.active_mtu = 4096;
  p.gids.push_back({0, "fe80:0000:0000:0000:a088:c203:0045:6789", "IB/RoCE v1", ""});
  d.ports.push_back(p);
  f.rdma_devices.push_back(d);
  Gpu g;
  g.pci_address = "0000:18:00.0";
  g.model = "NVIDIA H100 80GB HBM3";
  g.turing_or_newer = true;
  g.bar1_total_bytes = 128LL << 30;
  g.bar1_free_bytes = 127LL << 30;
  g.nearest_nic = "mlx5_0";
  g.path_type = "PIX";
  g.acs_redirect = Tristate::kNo;
  g.iommu = "off";
  f.gpus.push_back(g);
  return f;
}

Requirements Client() {
  return Requirements{};
}

TEST(JoinGroupedTest, GroupsOnlyOnceThreeShareAValue) {
  using checks::Said;
  auto said = [](const std::string& item, const std::string& value) {
    return Said{item + " " + value, item, value};
  };
  EXPECT_EQ(checks::JoinGrouped({said("a", "x"), said("b", "x"), said("c", "y")}), "a x, b x, c y");
  EXPECT_EQ(checks::JoinGrouped({said("a", "x"), said("b", "y"), said("c", "x"), said("d", "x")}),
            "x: a, c, d; y: b");
  EXPECT_EQ(checks::JoinGrouped({}), "");
}

TEST(EvaluateTest, HealthyNodeUsesDmaBuf) {
  Evaluation ev = Evaluate(HealthyIbGpuNode(), Client());
  EXPECT_TRUE(ev.ready);
  EXPECT_EQ(ev.selected_transport, "GPUDirect");
  EXPECT_EQ(FindVerdict(ev, "GPUDirect")->via, "DMABuf");
  // The unused peermem path is reported, but not as the node's failure.
  EXPECT_EQ(Find(ev, "gpu.peermem")->status, CheckStatus::kWarn);
}

TEST(EvaluateTest, PeerMemNeedsPeerDirectApi) {
  NodeFacts f = HealthyIbGpuNode();
  Requirements r = Client();
  r.registration = Registration::kPeerMem;
  Evaluation ev = Evaluate(f, r);
  const CheckResult* c = Find(ev, "gpu.peermem");
  EXPECT_EQ(c->status, CheckStatus::kFail);
  EXPECT_EQ(c->reason, "PeerMemNotLoaded");
  EXPECT_NE(c->message.find("PeerDirect"), std::string::npos);
  EXPECT_NE(c->remedy.find("MOFED"), std::string::npos);
  EXPECT_FALSE(FindVerdict(ev, "GPUDirect")->capable);
  EXPECT_EQ(ev.selected_transport, "HostMemory");

  f.drivers.peer_memory_api = true;
  f.drivers.ib_core_flavor = "MOFED";
  ev = Evaluate(f, r);
  c = Find(ev, "gpu.peermem");
  EXPECT_EQ(c->reason, "PeerMemNotLoaded");
  EXPECT_NE(c->remedy.find("modprobe nvidia-peermem"), std::string::npos);

  f.drivers.modules.back().loaded = true;  // nvidia_peermem
  ev = Evaluate(f, r);
  EXPECT_EQ(FindVerdict(ev, "GPUDirect")->via, "PeerMem");
}

TEST(EvaluateTest, DmaBufGates) {
  NodeFacts f = HealthyIbGpuNode();
  f.drivers.nvidia_module_flavor = "Proprietary";
  EXPECT_EQ(checks::CheckDmaBuf(f).reason, "DmaBufUnsupported");

  f = HealthyIbGpuNode();
  f.kernel = {"5.10.0-28-amd64", 5, 10};
  f.rdma_devices[0].dmabuf_supported = Tristate::kUnknown;
  EXPECT_EQ(checks::CheckDmaBuf(f).status, CheckStatus::kFail);
  // A RHEL-style old kernel with the backport: the NIC probe decides.
  f.kernel = {"4.18.0-513.el8.x86_64", 4, 18};
  f.rdma_devices[0].dmabuf_supported = Tristate::kYes;
  EXPECT_EQ(checks::CheckDmaBuf(f).status, CheckStatus::kPass);

  f = HealthyIbGpuNode();
  f.rdma_devices[0].dmabuf_supported = Tristate::kNo;
  f.rdma_devices[0].dmabuf_detail = "EOPNOTSUPP";
  EXPECT_NE(checks::CheckDmaBuf(f).message.find("EOPNOTSUPP"), std::string::npos);

  f = HealthyIbGpuNode();
  f.rdma_devices[0].dmabuf_supported = Tristate::kUnknown;
  EXPECT_EQ(checks::CheckDmaBuf(f).status, CheckStatus::kUnknown);
  // Unknown blocks the GPU-direct verdict: a path we could not verify is not promised.
  Evaluation ev = Evaluate(f, Client());
  EXPECT_FALSE(FindVerdict(ev, "GPUDirect")->capable);

  f = HealthyIbGpuNode();
  f.gpus[0].turing_or_newer = false;
  EXPECT_EQ(checks::CheckDmaBuf(f).status, CheckStatus::kFail);
}

TEST(EvaluateTest, Bar1MustHoldTransferPlusHeadroom) {
  NodeFacts f = HealthyIbGpuNode();
  f.gpus[0].bar1_total_bytes = 256LL << 20;
  f.gpus[0].bar1_free_bytes = 250LL << 20;
  EXPECT_EQ(checks::CheckBar1(f, 192LL << 20).status,
            CheckStatus::kWarn);  // fits, but BAR1 is small
  EXPECT_EQ(checks::CheckBar1(f, 224LL << 20).reason, "Bar1TooSmall");
  // Without NVML the free space is estimated from the total.
  f.gpus[0].bar1_free_bytes = -1;
  EXPECT_EQ(checks::CheckBar1(f, 224LL << 20).reason, "Bar1TooSmall");
  EXPECT_EQ(checks::CheckBar1(f, 192LL << 20).reason, "Bar1Small");
  f.gpus[0].bar1_total_bytes = 0;
  EXPECT_EQ(checks::CheckBar1(f, 0).status, CheckStatus::kUnknown);
}

TEST(EvaluateTest, DistanceAgainstRequirement) {
  NodeFacts f = HealthyIbGpuNode();
  f.gpus[0].path_type = "PHB";
  EXPECT_EQ(checks::CheckGpuNicDistance(f, PathType::kPxb).reason, "GpuNicTooFar");
  EXPECT_EQ(checks::CheckGpuNicDistance(f, PathType::kPhb).status, CheckStatus::kPass);
  f.gpus[0].path_type = "";
  EXPECT_EQ(checks::CheckGpuNicDistance(f, PathType::kPxb).status, CheckStatus::kUnknown);
}

TEST(EvaluateTest, AcsRedirectOnThePathTakesGpuDirectAway) {
  NodeFacts f = HealthyIbGpuNode();
  EXPECT_EQ(checks::CheckAcsRedirect(f).status, CheckStatus::kPass);
  f.gpus[0].acs_redirect = Tristate::kYes;
  f.gpus[0].acs_redirect_bridges = {"0000:17:01.0"};
  CheckResult c = checks::CheckAcsRedirect(f);
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.reason, "AcsRedirectOnPath");
  EXPECT_NE(c.message.find("0000:18:00.0 -> mlx5_0 at bridge 0000:17:01.0"), std::string::npos)
      << c.message;
  Evaluation ev = Evaluate(f, Client());
  EXPECT_FALSE(FindVerdict(ev, "GPUDirect")->capable);
  EXPECT_EQ(FindVerdict(ev, "GPUDirect")->reason, "AcsRedirectOnPath");
  EXPECT_EQ(ev.selected_transport, "HostMemory");
}

TEST(EvaluateTest, UnreadableAcsLeavesGpuDirectNotFullyVerified) {
  NodeFacts f = HealthyIbGpuNode();
  f.gpus[0].acs_redirect = Tristate::kUnknown;
  f.issues.push_back({"topology", "/sys/bus/pci/devices/0000:17:01.0/config", "64 bytes"});
  CheckResult c = checks::CheckAcsRedirect(f);
  EXPECT_EQ(c.status, CheckStatus::kUnknown);
  EXPECT_EQ(c.reason, "AcsUnknown");
  EXPECT_NE(c.message.find("0000:17:01.0/config"), std::string::npos) << c.message;
  Evaluation ev = Evaluate(f, Client());
  EXPECT_TRUE(FindVerdict(ev, "GPUDirect")->capable);
  EXPECT_EQ(FindVerdict(ev, "GPUDirect")->reason, "NotFullyVerified");
  EXPECT_EQ(ev.selected_transport, "GPUDirect");
  // One GPU that redirects outweighs another that could not be read.
  Gpu second = f.gpus[0];
  second.pci_address = "0000:2a:00.0";
  second.acs_redirect = Tristate::kYes;
  second.acs_redirect_bridges = {"0000:29:00.0"};
  f.gpus.push_back(second);
  EXPECT_EQ(checks::CheckAcsRedirect(f).reason, "AcsRedirectOnPath");
  // A GPU without a NIC path has no bridges to judge.
  f.gpus.resize(1);
  f.gpus[0].nearest_nic.clear();
  EXPECT_EQ(checks::CheckAcsRedirect(f).status, CheckStatus::kPass);
}

TEST(EvaluateTest, TranslatingIommuTakesGpuDirectAwayAndUnknownDoesNot) {
  NodeFacts f = HealthyIbGpuNode();
  EXPECT_EQ(checks::CheckIommu(f).status, CheckStatus::kPass);
  f.gpus[0].iommu = "passthrough";
  EXPECT_EQ(checks::CheckIommu(f).status, CheckStatus::kPass);
  EXPECT_NE(checks::CheckIommu(f).message.find("passthrough"), std::string::npos);

  f.gpus[0].iommu = "translated";
  f.gpus[0].iommu_detail = "0000:19:00.0 (IOMMU group type DMA-FQ)";
  CheckResult c = checks::CheckIommu(f);
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.reason, "IommuTranslating");
  EXPECT_NE(c.message.find("0000:18:00.0 -> mlx5_0: 0000:19:00.0 (IOMMU group type DMA-FQ)"),
            std::string::npos)
      << c.message;
  EXPECT_NE(c.remedy.find("iommu=pt"), std::string::npos);
  Evaluation ev = Evaluate(f, Client());
  EXPECT_EQ(FindVerdict(ev, "GPUDirect")->reason, "IommuTranslating");
  EXPECT_EQ(ev.selected_transport, "HostMemory");

  f.gpus[0].iommu = "";
  EXPECT_EQ(checks::CheckIommu(f).reason, "IommuUnknown");
  ev = Evaluate(f, Client());
  EXPECT_EQ(FindVerdict(ev, "GPUDirect")->reason, "NotFullyVerified");
  EXPECT_EQ(ev.selected_transport, "GPUDirect");
}

TEST(EvaluateTest, GidIndexOnNativeIbOnlyZero) {
  NodeFacts f = HealthyIbGpuNode();
  EXPECT_EQ(checks::CheckClientGid(f, -1).status, CheckStatus::kPass);
  EXPECT_EQ(checks::CheckClientGid(f, 0).status, CheckStatus::kPass);
  CheckResult c = checks::CheckClientGid(f, 3);
  EXPECT_EQ(c.reason, "NoUsableGid");
  EXPECT_NE(c.remedy.find("index 0"), std::string::npos);
}

TEST(EvaluateTest, IbPortWithoutSubnetManager) {
  NodeFacts f = HealthyIbGpuNode();
  f.rdma_devices[0].ports[0].state_code = 2;
  f.rdma_devices[0].ports[0].state = "INIT";
  f.rdma_devices[0].ports[0].sm_lid = "0x0";
  EXPECT_EQ(checks::CheckPortState(f).reason, "NoSubnetManager");
}

TEST(EvaluateTest, RoceMtuLowWarns) {
  NodeFacts f = HealthyIbGpuNode();
  f.rdma_devices[0].ports[0].link_layer = "Ethernet";
  f.rdma_devices[0].ports[0].active_mtu = 1024;
  f.rdma_devices[0].ports[0].active_mtu_source = "netdev";
  CheckResult c = checks::CheckActiveMtu(f);
  EXPECT_EQ(c.status, CheckStatus::kWarn);
  EXPECT_EQ(c.reason, "RoceMtuLow");
}

TEST(EvaluateTest, HostMemoryTransportSkipsGpuChecks) {
  NodeFacts f = HealthyIbGpuNode();
  f.gpus.clear();
  Requirements r = Client();
  r.transport = Transport::kHostMemory;
  Evaluation ev = Evaluate(f, r);
  EXPECT_TRUE(ev.ready);
  EXPECT_EQ(Find(ev, "gpu.present"), nullptr);
  EXPECT_EQ(FindVerdict(ev, "GPUDirect"), nullptr);
}

TEST(EvaluateTest, DcUnsupportedBlocksButUnknownDoesNot) {
  NodeFacts f = HealthyIbGpuNode();
  f.rdma_devices[0].dc_supported = Tristate::kUnknown;
  Evaluation ev = Evaluate(f, Client());
  EXPECT_TRUE(FindVerdict(ev, "HostMemory")->capable);
  EXPECT_EQ(FindVerdict(ev, "HostMemory")->reason, "NotFullyVerified");
  f.rdma_devices[0].dc_supported = Tristate::kNo;
  ev = Evaluate(f, Client());
  EXPECT_FALSE(FindVerdict(ev, "HostMemory")->capable);
  EXPECT_EQ(FindVerdict(ev, "HostMemory")->reason, "DcUnsupported");
}

TEST(EvaluateTest, SoftRoceIsNotAnRdmaDevice) {
  NodeFacts f = HealthyIbGpuNode();
  f.rdma_devices[0].soft = true;
  CheckResult c = checks::CheckRdmaDevices(f);
  EXPECT_EQ(c.reason, "NoRdmaDevice");
  EXPECT_NE(c.message.find("rxe"), std::string::npos);
}

}  // namespace
}  // namespace rdmastack::node
