// Malformed host trees: truncated and non-numeric files, missing directories, dangling and
// looping symlinks, huge files, FIFOs. The agent must answer with Unknown checks that name the
// path, never crash or hang.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "node/checks/checks.h"
#include "node/probe/node_probe.h"
#include "node/testing/fixture_util.h"

namespace rdmastack::node {
namespace {

namespace fs = std::filesystem;

class RobustnessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("agent-robust-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::string src = testing::FixtureDir("gpu-client-rtxa6000-bar1-256m-peermem-mofed");
    fs::copy(src + "/root", dir_ / "root",
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    fs::copy(src + "/ips.txt", dir_ / "ips.txt");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Root(const std::string& rel = "") const { return (dir_ / "root" / rel).string(); }
  void Write(const std::string& rel, const std::string& content) {
    fs::remove(Root(rel));
    std::ofstream(Root(rel)) << content;
  }
  void Symlink(const std::string& rel, const std::string& target) {
    fs::remove(Root(rel));
    fs::create_directories(fs::path(Root(rel)).parent_path());
    fs::create_symlink(target, Root(rel));
  }
  Evaluation Run(NodeFacts* facts_out = nullptr) {
    ProbeOptions o;
    o.root = Root();
    o.ips_file = (dir_ / "ips.txt").string();
    NodeFacts f = ProbeNode(o);
    Evaluation ev = Evaluate(f, Requirements{});
    if (facts_out) *facts_out = f;
    return ev;
  }
  static const CheckResult& Check(const Evaluation& ev, const std::string& id) {
    for (const auto& c : ev.checks) {
      if (c.id == id) return c;
    }
    static CheckResult none{"missing", CheckStatus::kPass, "", "", ""};
    return none;
  }
  // The catch-all check lists unreadable inputs by path.
  static void ExpectNamed(const Evaluation& ev, const std::string& path_part) {
    const CheckResult& c = Check(ev, "probe.read-errors");
    EXPECT_EQ(c.status, CheckStatus::kUnknown);
    EXPECT_NE(c.message.find(path_part), std::string::npos) << c.message;
  }

  static constexpr const char* kPort =
      "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:04.0/0000:1b:00.0/"
      "infiniband/mlx5_0/ports/1";
  static constexpr const char* kGpu =
      "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0";
  fs::path dir_;
};

TEST_F(RobustnessTest, TruncatedPortStateIsUnknownNamingThePath) {
  Write(std::string(kPort) + "/state", "");
  Write(std::string(kPort) + "/phys_state", "5");
  Evaluation ev = Run();
  const CheckResult& c = Check(ev, "rdma.port-state");
  EXPECT_EQ(c.status, CheckStatus::kUnknown);
  EXPECT_NE(c.message.find("ports/1/state"), std::string::npos) << c.message;
  EXPECT_FALSE(ev.ready);
}

TEST_F(RobustnessTest, NonNumericPciFieldsAndGarbageGid) {
  Write(std::string(kGpu) + "/numa_node", "abc");
  Write(std::string(kPort) + "/gids/0", "fe80:zzzz");
  Evaluation ev = Run();
  ExpectNamed(ev, "numa_node");
  NodeFacts f;
  Run(&f);
  bool gid_named = false;
  for (const auto& i : f.issues)
    gid_named = gid_named || i.path.find("gids/0") != std::string::npos;
  EXPECT_TRUE(gid_named);
}

// A counter says nothing about whether RDMA works: one that cannot be read is left out and named,
// and every check and verdict is what it was.
TEST_F(RobustnessTest, GarbledCounterIsLeftOutAndChangesNoVerdict) {
  NodeFacts clean;
  const Evaluation before = Run(&clean);
  Write(std::string(kPort) + "/counters/symbol_error", "-3");
  Write(std::string(kPort) + "/hw_counters/out_of_buffer", "99999999999999999999999");
  NodeFacts f;
  const Evaluation after = Run(&f);
  ASSERT_EQ(f.rdma_devices.size(), 1u);
  const auto& counters = f.rdma_devices[0].ports[0].counters;
  EXPECT_EQ(counters.size(), clean.rdma_devices[0].ports[0].counters.size() - 2);
  for (const auto& c : counters) {
    EXPECT_NE(c.name, "symbol_error");
    EXPECT_NE(c.name, "out_of_buffer");
  }
  ASSERT_EQ(f.IssuesIn("counters").size(), 2u);
  EXPECT_NE(f.IssuesIn("counters")[0]->path.find("symbol_error"), std::string::npos);
  EXPECT_FALSE(f.HasIssues("rdma"));
  ASSERT_EQ(after.verdicts.size(), before.verdicts.size());
  for (size_t i = 0; i < after.verdicts.size(); ++i) {
    EXPECT_EQ(after.verdicts[i].capable, before.verdicts[i].capable);
    EXPECT_EQ(after.verdicts[i].reason, before.verdicts[i].reason);
  }
  EXPECT_EQ(Check(after, "rdma.port-state").status, Check(before, "rdma.port-state").status);
}

// Counters are read again at every probe: a value the kernel moved is the value reported.
TEST_F(RobustnessTest, CountersAreReadAgainAtEveryProbe) {
  NodeFacts first;
  Run(&first);
  Write(std::string(kPort) + "/counters/port_xmit_data", "18446744073709551615");
  NodeFacts second;
  Run(&second);
  auto value = [](const NodeFacts& f, const std::string& name) -> uint64_t {
    for (const auto& c : f.rdma_devices[0].ports[0].counters)
      if (c.name == name) return c.value;
    return 0;
  };
  EXPECT_LT(value(first, "port_xmit_data"), value(second, "port_xmit_data"));
  EXPECT_EQ(value(second, "port_xmit_data"), 18446744073709551615u);  // all 64 bits
}

TEST_F(RobustnessTest, GarbageVendorHidesNothingElse) {
  Write("sys/bus/pci/devices/0000:1b:00.0/vendor", "\x01\x02garbage");
  Evaluation ev = Run();
  EXPECT_EQ(Check(ev, "rdma.nic-generation").status, CheckStatus::kUnknown);
  ExpectNamed(ev, "0000:1b:00.0/vendor");
}

TEST_F(RobustnessTest, MalformedResourceFileMakesBar1Unknown) {
  Write(std::string(kGpu) + "/resource", "0x00000000c5000000 0x00000000c5ffffff\n");
  Evaluation ev = Run();
  const CheckResult& c = Check(ev, "gpu.bar1");
  EXPECT_EQ(c.status, CheckStatus::kUnknown);
  EXPECT_NE(c.message.find("resource"), std::string::npos) << c.message;
}

// The switch port above the NIC: one of the two bridges between the GPU and the NIC.
constexpr const char* kNicPortConfig =
    "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:04.0/config";

TEST_F(RobustnessTest, ShortOrMalformedBridgeConfigMakesAcsUnknownNamingThePath) {
  const std::string full = [&] {
    std::ifstream in(Root(kNicPortConfig), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  ASSERT_EQ(full.size(), 4096u);
  EXPECT_EQ(Check(Run(), "gpu.acs").status, CheckStatus::kPass);

  // What sysfs gives a reader without CAP_SYS_ADMIN: the first 64 bytes.
  Write(kNicPortConfig, full.substr(0, 64));
  NodeFacts f;
  Evaluation ev = Run(&f);
  const CheckResult& c = Check(ev, "gpu.acs");
  EXPECT_EQ(c.status, CheckStatus::kUnknown);
  EXPECT_EQ(c.reason, "AcsUnknown");
  EXPECT_NE(c.message.find("0000:19:04.0/config"), std::string::npos) << c.message;
  EXPECT_EQ(f.gpus[0].acs_redirect, Tristate::kUnknown);
  EXPECT_TRUE(ev.ready);  // GPU-direct stays, not fully verified

  // An extended capability list that points at itself: AER (ID 1) at 0x100, next 0x100.
  std::string looping = full;
  looping[0x100] = static_cast<char>(0x01);
  looping[0x103] = static_cast<char>(0x10);  // next offset is bits 20..31 of the header
  Write(kNicPortConfig, looping);
  EXPECT_EQ(Check(Run(), "gpu.acs").reason, "AcsUnknown");

  // ReqRedir on: the verdict turns, and the bridge is named.
  std::string redirect = full;
  redirect[0x106] = static_cast<char>(0x04);
  Write(kNicPortConfig, redirect);
  ev = Run(&f);
  EXPECT_EQ(Check(ev, "gpu.acs").reason, "AcsRedirectOnPath");
  EXPECT_EQ(f.gpus[0].acs_redirect_bridges, std::vector<std::string>{"0000:19:04.0"});
}

// The NIC's IOMMU group, made by hand: pass-through, translating, unreadable and hostile types.
TEST_F(RobustnessTest, IommuGroupTypeDecidesAndGarbageIsUnknown) {
  const std::string nic =
      "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:04.0/0000:1b:00.0";
  fs::create_directories(Root("sys/kernel/iommu_groups/7"));
  Symlink(nic + "/iommu_group", "../../../../../../kernel/iommu_groups/7");
  auto run_with = [&](const std::string& type) {
    Write("sys/kernel/iommu_groups/7/type", type);
    NodeFacts f;
    Evaluation ev = Run(&f);
    return std::make_pair(f.gpus.at(0), Check(ev, "gpu.iommu"));
  };
  auto [g, c] = run_with("identity\n");
  EXPECT_EQ(g.iommu, "passthrough");
  EXPECT_EQ(c.status, CheckStatus::kPass);
  std::tie(g, c) = run_with("DMA\n");
  EXPECT_EQ(g.iommu, "translated");
  EXPECT_EQ(c.reason, "IommuTranslating");
  EXPECT_NE(c.message.find("0000:1b:00.0 (IOMMU group type DMA)"), std::string::npos) << c.message;
  // A type the kernel does not write: unknown, and its text is not repeated anywhere.
  std::tie(g, c) = run_with("identity\x1b[2J; rm -rf /\n");
  EXPECT_EQ(g.iommu, "");
  EXPECT_EQ(c.reason, "IommuUnknown");
  EXPECT_EQ(c.message.find("rm -rf"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("0000:1b:00.0/iommu_group/type"), std::string::npos) << c.message;
  // A kernel before 5.11 has no type file: iommu=pt on the command line says pass-through.
  fs::remove(Root("sys/kernel/iommu_groups/7/type"));
  Write("proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 intel_iommu=on iommu=pt quiet\n");
  NodeFacts f;
  EXPECT_EQ(Check(Run(&f), "gpu.iommu").status, CheckStatus::kPass);
  EXPECT_EQ(f.gpus[0].iommu, "passthrough");
  Write("proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 intel_iommu=on\n");
  EXPECT_EQ(Check(Run(&f), "gpu.iommu").reason, "IommuUnknown");
}

TEST_F(RobustnessTest, HugeFilesAreRefusedNotRead) {
  std::string big(8 << 20, 'x');
  Write(std::string(kGpu) + "/resource", big);
  Write("proc/sys/kernel/osrelease", big);
  Evaluation ev = Run();
  EXPECT_EQ(Check(ev, "gpu.bar1").status, CheckStatus::kUnknown);
  EXPECT_EQ(Check(ev, "kernel.release").status, CheckStatus::kUnknown);
  EXPECT_NE(Check(ev, "kernel.release").message.find("osrelease"), std::string::npos);
}

TEST_F(RobustnessTest, DanglingAndLoopingSymlinks) {
  Symlink("sys/class/infiniband/mlx5_9", "../../devices/nowhere/mlx5_9");
  Symlink("sys/bus/pci/devices/0000:1a:00.0", "0000:1a:00.0");  // points at itself
  Symlink("sys/class/net/loop0", "loop1");
  Symlink("sys/class/net/loop1", "loop0");
  Evaluation ev = Run();
  ExpectNamed(ev, "mlx5_9");
  NodeFacts f;
  Run(&f);
  bool loop_named = false;
  for (const auto& i : f.issues)
    loop_named = loop_named || i.path.find("0000:1a:00.0") != std::string::npos;
  EXPECT_TRUE(loop_named);
  EXPECT_TRUE(f.gpus.empty());
  EXPECT_EQ(Check(ev, "gpu.present").status, CheckStatus::kUnknown);
}

TEST_F(RobustnessTest, MissingDirectoriesAndUnreadableProc) {
  fs::remove_all(Root("sys/class/net"));
  fs::remove_all(Root("dev"));
  Write("proc/modules", "this is not a module list\n");
  Evaluation ev = Run();
  // /sys/module/<name>/initstate still answers, and the bad file is named.
  EXPECT_EQ(Check(ev, "rdma.modules").status, CheckStatus::kPass);
  ExpectNamed(ev, "proc/modules");
  EXPECT_EQ(Check(ev, "rdma.device-files").reason, "DeviceFilesMissing");
  fs::remove_all(Root("sys/module"));
  ev = Run();
  EXPECT_EQ(Check(ev, "rdma.modules").status, CheckStatus::kUnknown);
  EXPECT_NE(Check(ev, "rdma.modules").message.find("proc/modules"), std::string::npos);
}

TEST_F(RobustnessTest, FifoDoesNotBlock) {
  fs::remove(Root("proc/sys/kernel/osrelease"));
  ASSERT_EQ(::mkfifo(Root("proc/sys/kernel/osrelease").c_str(), 0600), 0);
  Evaluation ev = Run();
  EXPECT_EQ(Check(ev, "kernel.release").status, CheckStatus::kUnknown);
}

TEST_F(RobustnessTest, BinaryNvidiaVersion) {
  Write("proc/driver/nvidia/version", std::string("\0\xff\xfe NVRM", 8));
  Evaluation ev = Run();
  ExpectNamed(ev, "proc/driver/nvidia/version");
}

TEST_F(RobustnessTest, EmptyRootIsAllUnknownOrFail) {
  fs::remove_all(Root());
  fs::create_directories(Root());
  Evaluation ev = Run();
  EXPECT_FALSE(ev.ready);
  EXPECT_EQ(Check(ev, "kernel.release").status, CheckStatus::kUnknown);
  EXPECT_EQ(Check(ev, "rdma.devices").reason, "NoRdmaDevice");
}

}  // namespace
}  // namespace rdmastack::node
