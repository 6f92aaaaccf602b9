// The module files beside the loaded modules (node/probe/module_files.h) when the host does not
// look like the fixtures: compressed or missing files, no modules.dep, paths that climb, modules
// without a srcversion, and no nvidia_peermem at all.
#include "node/probe/module_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "node/checks/gpu_checks.h"
#include "node/probe/system_probe.h"
#include "node/testing/fixture_util.h"

namespace rdmastack::node {
namespace {

namespace fs = std::filesystem;

class ModuleFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/module-files-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    fs::copy(testing::FixtureDir("gpu-client-h100-peermem-mofed") + "/root", dir_,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& rel, const std::string& text) {
    std::ofstream(dir_ + "/" + rel) << text;
  }
  std::vector<ModuleFile> Probe() {
    HostRoot root(dir_);
    issues_.clear();
    const KernelFacts kernel = ProbeKernel(root, &issues_);
    const DriverFacts drivers = ProbeDrivers(root, &issues_);
    return ProbeModuleFiles(root, kernel, drivers, &issues_);
  }
  CheckResult Check(std::vector<ModuleFile> files) {
    NodeFacts f;
    f.drivers.module_files = std::move(files);
    return checks::CheckPeerMemAbi(f);
  }

  const std::string kDep = "lib/modules/5.15.0-119-generic/modules.dep";
  std::string dir_;
  std::vector<ProbeIssue> issues_;
};

TEST_F(ModuleFilesTest, CompressedAndClimbingPathsAreNotRead) {
  Write(kDep,
        "updates/dkms/ib_core.ko.zst:\n../../../etc/ib_uverbs.ko:\nupdates/dkms/mlx5_ib.ko:\n"
        "updates/dkms/nvidia.ko:\nupdates/dkms/nvidia-peermem.ko:\n");
  const auto files = Probe();
  ASSERT_EQ(files.size(), 5u);
  EXPECT_EQ(files[0].not_read, "compressed (.zst), not read");
  EXPECT_EQ(files[1].not_read, "a path with '..' in modules.dep, not followed");
  EXPECT_EQ(files[3].file_srcversion, files[3].loaded_srcversion);
  const CheckResult r = Check(files);
  EXPECT_EQ(r.status, CheckStatus::kUnknown);
  EXPECT_EQ(r.reason, "PeerMemAbiUnknown");
  EXPECT_NE(r.message.find("ib_core (compressed (.zst), not read)"), std::string::npos)
      << r.message;
}

TEST_F(ModuleFilesTest, MissingModulesDepOrEntryOrFileSaysWhich) {
  Write(kDep, "updates/dkms/ib_core.ko:\nupdates/dkms/gone.ko:\n");
  fs::rename(dir_ + "/lib/modules/5.15.0-119-generic/updates/dkms/ib_core.ko",
             dir_ + "/lib/modules/5.15.0-119-generic/updates/dkms/gone.ko");
  auto files = Probe();
  ASSERT_EQ(files.size(), 5u);
  EXPECT_NE(files[0].not_read.find("ib_core.ko"), std::string::npos) << files[0].not_read;
  EXPECT_EQ(files[1].not_read, "not in " + dir_ + "/" + kDep);
  fs::remove_all(dir_ + "/lib/modules");
  files = Probe();
  ASSERT_EQ(files.size(), 5u);
  EXPECT_EQ(files[4].not_read, "no lib/modules/5.15.0-119-generic/modules.dep");
  EXPECT_EQ(Check(files).status, CheckStatus::kUnknown);
}

// A loaded module without srcversion is built in (or built without one): nothing to compare.
TEST_F(ModuleFilesTest, ModulesWithoutSrcversionAreLeftOut) {
  fs::remove(dir_ + "/sys/module/ib_core/srcversion");
  Write("sys/module/nvidia/srcversion", "");
  const auto files = Probe();
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].name, "ib_uverbs");
  EXPECT_EQ(files[1].name, "mlx5_ib");
  EXPECT_EQ(files[2].name, "nvidia_peermem");
  EXPECT_EQ(Check(files).status, CheckStatus::kPass);
}

TEST_F(ModuleFilesTest, NothingWithoutNvidiaPeermem) {
  std::ifstream in(dir_ + "/proc/modules");
  std::string line, kept;
  while (std::getline(in, line)) {
    if (line.rfind("nvidia_peermem ", 0) != 0) kept += line + "\n";
  }
  Write("proc/modules", kept);
  EXPECT_TRUE(Probe().empty());
  EXPECT_EQ(Check({}).status, CheckStatus::kPass);
}

// A file that is no module, or a hostile one, is reported as not read and never read past.
TEST_F(ModuleFilesTest, AFileThatIsNoModuleIsNotRead) {
  Write("lib/modules/5.15.0-119-generic/updates/dkms/nvidia.ko",
        "#!/bin/sh\necho not elf\n" + std::string(100, '#') + "\n");
  const auto files = Probe();
  ASSERT_EQ(files.size(), 5u);
  EXPECT_NE(files[3].not_read.find("nvidia.ko: not an ELF file (bad magic)"), std::string::npos)
      << files[3].not_read;
}

// A FIFO (or a device) where the module file should be: no writer ever comes, so a blocking open
// would hang the agent's probe for good. It is refused as not a regular file, at once.
TEST_F(ModuleFilesTest, AFifoAtTheModulesPathIsRefusedWithoutWaiting) {
  const std::string path = dir_ + "/lib/modules/5.15.0-119-generic/updates/dkms/ib_core.ko";
  fs::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const auto files = Probe();  // returns: a hang here is the failure
  ASSERT_EQ(files.size(), 5u);
  EXPECT_EQ(files[0].name, "ib_core");
  EXPECT_EQ(files[0].file_srcversion, "");
  EXPECT_NE(files[0].not_read.find("ib_core.ko"), std::string::npos) << files[0].not_read;
  EXPECT_NE(files[1].file_srcversion, "") << "the other modules are read as before";
}

}  // namespace
}  // namespace rdmastack::node
