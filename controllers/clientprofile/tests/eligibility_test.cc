// DecideEligibility over what real agents report: the agent's probe, checks and report builder run
// over the node fixtures (each a host from the field report), and the RdmaNode status is made from
// the report as the operator makes it.
#include "controllers/clientprofile/eligibility.h"

#include <gtest/gtest.h>

#include "controllers/rdmanode/rdmanode_status.h"
#include "controllers/rdmanode/testing/fixture_reports.h"
#include "crds/types/int_or_string.h"

namespace rdmastack::clientprofile {
namespace {

crd::RdmaNodeStatus Reported(const std::string& fixture) {
  crd::RdmaNodeStatus status;
  rdmanode::FillFacts(rdmanode::testing::FixtureReport(
                          fixture, rdmanode::testing::ClientRequirements("ml/profile")),
                      &status);
  status.agent = crd::AgentStatus{crd::AgentState::kConnected, "0.1.0", {}, {}, {}};
  return status;
}

crd::ClientProfileSpec GpuDirect(const char* max_transfer = "192Mi") {
  crd::ClientProfileSpec spec;
  spec.transport = crd::Transport::kGPUDirect;
  spec.max_transfer_size = crd::IntOrString::Str(max_transfer);
  return spec;
}

struct Case {
  const char* name;
  const char* fixture;
  crd::ClientProfileSpec spec;
  bool eligible;
  const char* transport;     // when eligible
  const char* registration;  // when eligible with GPUDirect
  const char* reason;
  const char* message_part;
};

crd::ClientProfileSpec With(crd::ClientProfileSpec spec,
                            const std::function<void(crd::ClientProfileSpec&)>& change) {
  change(spec);
  return spec;
}

const Case kCases[] = {
    // The seed's RTX A6000: 256 MiB BAR1 (250 MiB free): 192 MiB transfers worked, 224 MiB failed.
    {"A6000At192MiViaPeerMem", "gpu-client-rtxa6000-bar1-256m-peermem-mofed", GpuDirect("192Mi"),
     true, "GPUDirect", "PeerMem", "Eligible", "nvidia_peermem (loaded)"},
    {"A6000At224MiBar1TooSmall", "gpu-client-rtxa6000-bar1-256m-peermem-mofed", GpuDirect("224Mi"),
     false, "", "", "Bar1TooSmall",
     "a 224Mi transfer plus 32Mi headroom does not fit BAR1 free 250Mi (total 256Mi); lower "
     "maxTransferSize to at most 218Mi"},
    {"A6000At224MiAutoFallsBackToHostMemory", "gpu-client-rtxa6000-bar1-256m-peermem-mofed",
     With(GpuDirect("224Mi"), [](auto& s) { s.transport = crd::Transport::kAuto; }), true,
     "HostMemory", "", "Eligible", "GPU-direct is not possible here (Bar1TooSmall"},
    {"A6000DmaBufRefusedOnProprietaryModule", "gpu-client-rtxa6000-bar1-256m-peermem-mofed",
     With(GpuDirect(), [](auto& s) { s.memory_registration = crd::MemoryRegistration::kDMABuf; }),
     false, "", "", "DmaBufUnsupported", "proprietary NVIDIA kernel module"},
    // H100 with the open kernel module on kernel 6.8: dma-buf, nvidia_peermem not needed.
    {"H100OpenModuleViaDmaBuf", "gpu-client-h100-dmabuf-open-inbox", GpuDirect(), true, "GPUDirect",
     "DMABuf", "Eligible", "dma-buf"},
    {"H100InboxPeerMemNotLoaded", "gpu-client-h100-dmabuf-open-inbox",
     With(GpuDirect(),
          [](auto& s) {
            s.memory_registration = crd::MemoryRegistration::kPeerMem;
            s.load_peer_mem = true;  // no help: the inbox ib_core has no PeerDirect API
          }),
     false, "", "", "PeerMemNotLoaded", "lacks the PeerDirect API"},
    {"H100ProprietaryMofedPeerMemLoaded", "gpu-client-h100-peermem-mofed", GpuDirect(), true,
     "GPUDirect", "PeerMem", "Eligible", "dma-buf: the proprietary"},
    {"NoRdmaDevice", "node-without-rdma", GpuDirect(), false, "", "", "NoRdmaDevice", ""},
    {"NoRdmaDeviceForHostMemoryToo", "node-without-rdma",
     With(GpuDirect(), [](auto& s) { s.transport = crd::Transport::kHostMemory; }), false, "", "",
     "NoRdmaDevice", ""},
    {"CrossSocketGpuNicTooFar", "gpu-client-cross-socket-sys", GpuDirect(), false, "", "",
     "GpuNicTooFar", "SYS is farther than maxGpuNicDistance PXB"},
    {"CrossSocketAllowedAtSys", "gpu-client-cross-socket-sys",
     With(GpuDirect(), [](auto& s) { s.max_gpu_nic_distance = crd::PcieDistance::kSYS; }), true,
     "GPUDirect", "DMABuf", "Eligible", ""},
    {"CrossSocketAutoUsesHostMemory", "gpu-client-cross-socket-sys",
     With(GpuDirect(), [](auto& s) { s.transport = crd::Transport::kAuto; }), true, "HostMemory",
     "", "Eligible", "GpuNicTooFar"},
    // The same H100 host with ACS redirect on the switch port above its NIC: the PIX path is
    // not taken, whatever the topology says.
    {"H100AcsRedirectRefused", "gpu-client-h100-acs-redirect", GpuDirect(), false, "", "",
     "AcsRedirectOnPath",
     "0000:18:00.0 -> ibp25s0: PCIe ACS on bridge 0000:17:01.0 redirects peer-to-peer traffic"},
    {"H100AcsRedirectAutoUsesHostMemory", "gpu-client-h100-acs-redirect",
     With(GpuDirect(), [](auto& s) { s.transport = crd::Transport::kAuto; }), true, "HostMemory",
     "", "Eligible", "AcsRedirectOnPath"},
    {"H100IommuTranslatingRefused", "gpu-client-h100-iommu-translated", GpuDirect(), false, "", "",
     "IommuTranslating", "0000:18:00.0 -> ibp25s0: the IOMMU translates their DMA"},
    // ConnectX-4 VF in a VM: cuObject needs ConnectX-5 or newer, whatever the transport.
    {"Cx4VfUnsupported", "gpu-client-cx4-vf-vm",
     With(GpuDirect(), [](auto& s) { s.transport = crd::Transport::kHostMemory; }), false, "", "",
     "UnsupportedNic", "ConnectX-4 VF"},
    // Native InfiniBand has only GID index 0.
    {"InfiniBandGidIndex3Refused", "gpu-client-h100-dmabuf-open-inbox",
     With(GpuDirect(), [](auto& s) { s.gid_index = crd::IntOrString::Int(3); }), false, "", "",
     "NoUsableGid", "native InfiniBand has only GID index 0"},
    {"InfiniBandGidIndex0", "gpu-client-h100-dmabuf-open-inbox",
     With(GpuDirect(), [](auto& s) { s.gid_index = crd::IntOrString::Int(0); }), true, "GPUDirect",
     "DMABuf", "Eligible", "GID index 0"},
    // RoCE v2: the GID of the netdev's IPv4 address (index 3 on this DOCA host), no GPU.
    {"RoceHostMemoryAutoGid", "gateway-roce-v2-gid3-doca",
     With(GpuDirect(), [](auto& s) { s.transport = crd::Transport::kAuto; }), true, "HostMemory",
     "", "Eligible", "GID index 3"},
    {"RoceGpuDirectWithoutGpu", "gateway-roce-v2-gid3-doca", GpuDirect(), false, "", "", "NoGpu",
     ""},
    {"PortDown", "storage-cx6-ib-port-down",
     With(GpuDirect(), [](auto& s) { s.transport = crd::Transport::kHostMemory; }), false, "", "",
     "LinkDown", ""},
};

class EligibilityTest : public ::testing::TestWithParam<Case> {};

TEST_P(EligibilityTest, MatchesTheFieldReport) {
  const Case& c = GetParam();
  const crd::RdmaNodeStatus node = Reported(c.fixture);
  const Eligibility e = DecideEligibility(c.spec, &node);
  EXPECT_EQ(e.eligible, c.eligible) << e.reason << ": " << e.message;
  EXPECT_EQ(e.reason, c.reason) << e.message;
  EXPECT_NE(e.message.find(c.message_part), std::string::npos) << e.message;
  EXPECT_FALSE(e.message.empty());
  if (c.eligible) {
    EXPECT_EQ(e.transport, c.transport) << e.message;
    EXPECT_EQ(e.memory_registration, c.registration) << e.message;
    EXPECT_TRUE(e.gid_index.has_value());
  } else {
    EXPECT_EQ(e.transport, "");
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, EligibilityTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(EligibilityTest, SilentOrMissingAgentIsNotReporting) {
  EXPECT_EQ(DecideEligibility(GpuDirect(), nullptr).reason, "AgentNotReporting");
  crd::RdmaNodeStatus node = Reported("gpu-client-h100-dmabuf-open-inbox");
  node.agent->state = crd::AgentState::kStale;
  const Eligibility e = DecideEligibility(GpuDirect(), &node);
  EXPECT_FALSE(e.eligible);
  EXPECT_EQ(e.reason, "AgentNotReporting");
}

// The HGX node as its agent reports it, against a pool on the storage networks (its storage
// ports' only) and one on the compute rails: the operator decides as the client does
// (NodePlan.OnThePoolsNetworksEachGpuTakesItsNearestNicThere).
TEST(EligibilityTest, OnThePoolsNetworksEachGpuNeedsItsNearestNicThereWithinDistance) {
  const crd::RdmaNodeStatus node = Reported("gpu-client-hgx-h100-8gpu-8nic");
  ASSERT_EQ(node.gpus.size(), 8u);
  EXPECT_EQ(node.gpus[0].nic_paths.size(), 12u) << "a path to every RDMA device";
  const std::vector<crd::PoolNetwork> storage = {{"a", "198.18.0.0/24"}, {"b", "198.18.2.0/24"}};
  crd::ClientProfileSpec spec = GpuDirect();
  EXPECT_TRUE(DecideEligibility(spec, &node).eligible);
  Eligibility e = DecideEligibility(spec, &node, storage);
  EXPECT_FALSE(e.eligible);
  EXPECT_EQ(e.reason, "GpuNicTooFar");
  EXPECT_NE(e.message.find("-> mlx5_1 "), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("(rail a, 198.18.0.0/24)"), std::string::npos) << e.message;

  spec.transport = crd::Transport::kAuto;
  e = DecideEligibility(spec, &node, storage);
  EXPECT_TRUE(e.eligible) << e.message;
  EXPECT_EQ(e.transport, "HostMemory");
  EXPECT_NE(e.message.find("GpuNicTooFar"), std::string::npos) << e.message;

  spec.max_gpu_nic_distance = crd::PcieDistance::kSYS;
  e = DecideEligibility(spec, &node, storage);
  EXPECT_EQ(e.transport, "GPUDirect") << e.message;

  spec.max_gpu_nic_distance = crd::PcieDistance::kPXB;
  e = DecideEligibility(spec, &node, {{std::nullopt, "10.40.0.0/13"}});
  EXPECT_EQ(e.transport, "GPUDirect") << e.message;
  e = DecideEligibility(spec, &node, {{std::nullopt, "172.16.0.0/12"}});
  EXPECT_EQ(e.transport, "GPUDirect") << "no NIC on the pool's networks: routed, " << e.message;
}

TEST(EligibilityTest, PeerMemNotLoadedOnMofedNeedsLoadPeerMem) {
  crd::RdmaNodeStatus node = Reported("gpu-client-rtxa6000-bar1-256m-peermem-mofed");
  for (auto& m : node.host->modules) {
    if (m.name == "nvidia_peermem") m.loaded = false;
  }
  crd::ClientProfileSpec spec = GpuDirect();
  Eligibility e = DecideEligibility(spec, &node);
  EXPECT_FALSE(e.eligible);
  EXPECT_EQ(e.reason, "PeerMemNotLoaded");
  EXPECT_NE(e.message.find("set loadPeerMem: true"), std::string::npos) << e.message;

  spec.load_peer_mem = true;
  e = DecideEligibility(spec, &node);
  EXPECT_TRUE(e.eligible) << e.message;
  EXPECT_EQ(e.memory_registration, "PeerMem");
  EXPECT_TRUE(e.loads_peer_mem);
  EXPECT_NE(e.message.find("the client loads it"), std::string::npos) << e.message;
}

TEST(EligibilityTest, DmaBufPreferredOverLoadedPeerMemUnderAuto) {
  crd::RdmaNodeStatus node = Reported("gpu-client-h100-dmabuf-open-inbox");
  for (auto& m : node.host->modules) {
    if (m.name == "nvidia_peermem") m.loaded = true;
  }
  const Eligibility e = DecideEligibility(GpuDirect(), &node);
  EXPECT_EQ(e.memory_registration, "DMABuf");
  EXPECT_FALSE(e.loads_peer_mem);
}

}  // namespace
}  // namespace rdmastack::clientprofile
