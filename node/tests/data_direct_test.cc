// ConnectX-8 Data Direct: what the device prober is told, checked against the fixture trees'
// sysfs; the GPU's path measured from the function; the check's verdicts.
#include <gtest/gtest.h>

#include "node/checks/checks.h"
#include "node/checks/gpu_checks.h"
#include "node/probe/data_direct_probe.h"
#include "node/probe/device_prober.h"
#include "node/testing/fixture_util.h"

namespace rdmastack::node {
namespace {

using testing::FixtureDir;
using testing::ProbeFixture;

constexpr char kTray[] = "gpu-client-cx8-data-direct-4gpu";
// mlx5_0's Data Direct function in the tray, as libmlx5 names it (below /sys).
constexpr char kFunction0[] =
    "/devices/pci0008:00/0008:00:00.0/0008:01:00.0/0008:02:00.0/0008:03:00.0";

RdmaDevice Answered(std::string_view answer) {
  RdmaDevice d;
  d.name = "mlx5_0";
  RecordDataDirectAnswer(answer, &d);
  return d;
}

TEST(DataDirectTest, TheProvidersAnswerIsRecorded) {
  EXPECT_EQ(Answered(kFunction0).data_direct, Tristate::kYes);
  const RdmaDevice none = Answered("ENODEV");
  EXPECT_EQ(none.data_direct, Tristate::kNo);
  EXPECT_EQ(none.data_direct_detail, "ENODEV");
  const RdmaDevice other = Answered("EPERM");
  EXPECT_EQ(other.data_direct, Tristate::kUnknown);
  EXPECT_EQ(other.data_direct_detail, "EPERM");
  // Not a path and not ENODEV: not taken as a path.
  EXPECT_EQ(Answered("devices/pci0008:00/0008:03:00.0").data_direct, Tristate::kUnknown);
}

TEST(DataDirectTest, APathIsKeptOnlyWhenSysfsHasADataDirectFunctionThere) {
  const HostRoot root(FixtureDir(kTray) + "/root");
  struct Case {
    std::string answer;
    std::string refusal;  // "" = kept
  };
  const std::vector<Case> cases = {
      {kFunction0, ""},
      // The GPU in the same tree: a PCI function, not a Data Direct one.
      {"/devices/pci0008:00/0008:00:00.0/0008:01:00.0/0008:02:01.0/0008:04:00.0",
       "is not a Data Direct function"},
      // The right function named from somewhere else.
      {"/devices/pci0008:00/0008:03:00.0", "not where sysfs has PCI function 0008:03:00.0"},
      {"/devices/pci0008:00/0008:00:00.0/../../../etc/0008:03:00.0", "not a plain sysfs"},
      {"/sys/devices/pci0008:00/0008:03:00.0", "not a sysfs device path"},
      {"/devices/pci0008:00/0008:00:00.0/0008:01:00.0/0008:02:00.0/0008:09:00.0", "0008:09:00.0"},
      {"/devices/" + std::string(2000, 'a'), "not a sysfs device path"},
  };
  for (const Case& c : cases) {
    std::vector<RdmaDevice> devices = {Answered(c.answer)};
    std::vector<ProbeIssue> issues;
    ResolveDataDirect(root, &devices, &issues);
    const RdmaDevice& d = devices.front();
    if (c.refusal.empty()) {
      EXPECT_EQ(d.data_direct, Tristate::kYes) << c.answer << ": " << d.data_direct_detail;
      EXPECT_EQ(d.data_direct_pci, "0008:03:00.0");
      EXPECT_EQ(d.data_direct_path, "sys" + c.answer);
      EXPECT_EQ(d.data_direct_numa_node, 0);
      EXPECT_TRUE(issues.empty());
      continue;
    }
    EXPECT_EQ(d.data_direct, Tristate::kUnknown) << c.answer;
    EXPECT_TRUE(d.data_direct_pci.empty()) << c.answer;
    EXPECT_TRUE(d.data_direct_path.empty()) << c.answer;
    EXPECT_NE(d.data_direct_detail.find(c.refusal), std::string::npos)
        << c.answer << ": " << d.data_direct_detail;
    ASSERT_EQ(issues.size(), 1u) << c.answer;
    EXPECT_EQ(issues.front().area, "rdma");
    EXPECT_LE(d.data_direct_detail.size(), 1024u);
  }
}

TEST(DataDirectTest, FunctionsAreFoundWithTheirDriver) {
  auto functions = [](const std::string& profile) {
    const HostRoot root(FixtureDir(profile) + "/root");
    std::vector<ProbeIssue> issues;
    return ProbeDataDirectFunctions(root, ListPciVendors(root, &issues));
  };
  const auto bound = functions(kTray);
  ASSERT_EQ(bound.size(), 4u);
  EXPECT_EQ(bound[0].pci_address, "0008:03:00.0");
  EXPECT_EQ(bound[0].driver, "mlx5_ib");
  EXPECT_EQ(bound[3].pci_address, "000b:03:00.0");
  const auto unbound = functions("gpu-client-cx8-data-direct-unbound");
  ASSERT_EQ(unbound.size(), 4u);
  EXPECT_EQ(unbound[0].driver, "");
  // A tree without any: the H100 node's ConnectX-7 is 15b3:1021.
  EXPECT_TRUE(functions("gpu-client-h100-peermem-mofed").empty());
}

// The tray's NIC functions hang off CPU root ports in domains of their own; the GPU's DMA goes
// through the Data Direct function beside it, so that is the path that counts.
TEST(DataDirectTest, TheGpusPathIsMeasuredFromTheDataDirectFunction) {
  const NodeFacts f = ProbeFixture(kTray);
  ASSERT_EQ(f.gpus.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(f.gpus[i].nearest_nic, "mlx5_" + std::to_string(i));
    EXPECT_EQ(f.gpus[i].path_type, "PIX") << f.gpus[i].pci_address;
    EXPECT_EQ(f.gpus[i].nearest_nic_via, f.rdma_devices[i].data_direct_pci);
  }
  for (const GpuNicPath& p : f.gpu_nic_paths) {
    EXPECT_FALSE(p.via.empty());
    // Another GPU's pair: its function sits in another domain (same socket PHB, else SYS).
    if (p.nic != f.gpus[0].nearest_nic && p.gpu == f.gpus[0].pci_address) {
      EXPECT_NE(p.path_type, "PIX") << p.nic;
    }
  }
  Evaluation ev = Evaluate(f, Requirements{});
  EXPECT_EQ(ev.selected_transport, "GPUDirect");

  const NodeFacts unbound = ProbeFixture("gpu-client-cx8-data-direct-unbound");
  ASSERT_EQ(unbound.gpus.size(), 4u);
  EXPECT_EQ(unbound.gpus[0].path_type, "PHB");  // the NIC's own function, on the same socket
  EXPECT_EQ(unbound.gpus[0].nearest_nic_via, "");
  Evaluation refused = Evaluate(unbound, Requirements{});
  EXPECT_NE(refused.selected_transport, "GPUDirect");
  const Verdict* gpu = nullptr;
  for (const Verdict& v : refused.verdicts)
    if (v.capability == "GPUDirect") gpu = &v;
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->reason, "GpuNicTooFar");
  EXPECT_NE(gpu->message.find("4 Data Direct function(s) on this node serve no NIC"),
            std::string::npos)
      << gpu->message;
}

NodeFacts TwoFunctions() {
  NodeFacts f;
  for (const char* bdf : {"0008:03:00.0", "0009:03:00.0"})
    f.data_direct_functions.push_back({bdf, ""});
  for (const char* name : {"mlx5_0", "mlx5_1"}) {
    RdmaDevice d;
    d.name = name;
    d.generation_rank = 8;
    f.rdma_devices.push_back(d);
  }
  return f;
}

TEST(DataDirectTest, CheckVerdicts) {
  NodeFacts f = TwoFunctions();
  f.rdma_devices[0].data_direct = Tristate::kYes;
  f.rdma_devices[0].data_direct_pci = "0008:03:00.0";
  f.rdma_devices[1].data_direct = Tristate::kYes;
  f.rdma_devices[1].data_direct_pci = "0009:03:00.0";
  CheckResult r = checks::CheckDataDirect(f);
  EXPECT_EQ(r.status, CheckStatus::kPass);
  EXPECT_EQ(r.message,
            "GPU DMA through Data Direct: mlx5_0 via 0008:03:00.0, mlx5_1 via 0009:03:00.0");

  // One device answered ENODEV: its function idles, named with its (missing) driver.
  f.rdma_devices[1].data_direct = Tristate::kNo;
  f.rdma_devices[1].data_direct_pci.clear();
  r = checks::CheckDataDirect(f);
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_EQ(r.reason, "DataDirectNotBound");
  EXPECT_EQ(r.message.rfind("Data Direct function 0009:03:00.0 (no driver) serves no RDMA device: "
                            "mlx5_1 answered ENODEV",
                            0),
            0u)
      << r.message;

  // libmlx5 too old to ask: unknown, with why.
  NodeFacts old = TwoFunctions();
  for (RdmaDevice& d : old.rdma_devices)
    d.data_direct_detail =
        "mlx5dv_get_data_direct_sysfs_path missing (libmlx5 older than MLX5_1.25)";
  r = checks::CheckDataDirect(old);
  EXPECT_EQ(r.status, CheckStatus::kUnknown);
  EXPECT_EQ(r.reason, "DataDirectUnknown");
  EXPECT_NE(r.message.find("mlx5_0 (mlx5dv_get_data_direct_sysfs_path missing"), std::string::npos)
      << r.message;

  // Only where the node has Data Direct functions: no line elsewhere.
  NodeFacts plain = TwoFunctions();
  plain.data_direct_functions.clear();
  EXPECT_EQ(checks::CheckDataDirect(plain).status, CheckStatus::kPass);
  Evaluation ev = Evaluate(plain, Requirements{});
  for (const CheckResult& c : ev.checks) EXPECT_NE(c.id, "gpu.data-direct");
}

}  // namespace
}  // namespace rdmastack::node
