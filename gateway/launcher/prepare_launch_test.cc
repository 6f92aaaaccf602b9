// PrepareLaunch in-process, with the memory-lock facts injected (the binary test covers the real
// capget/getrlimit path under setpriv/prlimit).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gateway/launcher/launcher.h"
#include "gateway/launcher/test_paths.h"

namespace rdmastack::gateway {
namespace {

namespace fs = std::filesystem;

class PrepareLaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gw-prepare-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "gw");
    config_.mode = GatewayMode::kRdma;
    config_.gateway_binary = testing::ElfFixture("bin/fake_vgwrdma_v1");
    config_.gwroot_template = (dir_ / "gw").string();
    config_.s3_port = 7071;
    config_.rdma_select = "bond0";
    config_.rdma_port = 19100;
    config_.host_root = testing::NodeRoot("storage-cx6-ib-ipoib-bond0-el8-inbox");
    config_.ips_file = testing::NodeIps("storage-cx6-ib-ipoib-bond0-el8-inbox");
    config_.library = {testing::ElfFixture("lib-v1"), "1.2.0.68", 1};
    config_.config_dir = (dir_ / "run").string();
    config_.cufile_log_dir = (dir_ / "run/log").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  PrepareResult Prepare(MemlockFacts facts) {
    LauncherIo io;
    io.read_memlock = [facts]() -> StatusOr<MemlockFacts> { return facts; };
    return PrepareLaunch(config_, env_, io);
  }

  fs::path dir_;
  LaunchConfig config_;
  Environment env_{{"ROOT_ACCESS_KEY_ID", "a"}, {"ROOT_SECRET_ACCESS_KEY", "s"}};
};

TEST_F(PrepareLaunchTest, IpcLockAloneIsEnough) {
  PrepareResult r = Prepare({true, 65536, 65536});
  ASSERT_TRUE(std::holds_alternative<ExecPlan>(r)) << std::get<Refusal>(r).ToLine();
  const ExecPlan& plan = std::get<ExecPlan>(r);
  EXPECT_EQ(plan.env_overrides.at("VGW_RDMA_IP"), "10.10.0.11");
  EXPECT_NE(testing::ReadWholeFile(plan.cufile_json_path).find("10.10.0.11"), std::string::npos);
}

// Only the digest tells a rebuilt or tampered library from the release it is named after.
TEST_F(PrepareLaunchTest, LibraryOfOtherBytesIsALibraryDigestRefusal) {
  config_.library.sha256 = std::string(64, '0');
  PrepareResult r = Prepare({true, std::nullopt, std::nullopt});
  ASSERT_TRUE(std::holds_alternative<Refusal>(r));
  const Refusal& refusal = std::get<Refusal>(r);
  EXPECT_EQ(refusal.cls, RefusalClass::kLibraryDigest);
  EXPECT_EQ(refusal.exit_code(), 72);
  EXPECT_EQ(refusal.ToLine().rfind("rdmastack-gateway: refused (library-digest): "
                                   "libcuobjserver.so.1.2.0.68: sha256 is ",
                                   0),
            0u)
      << refusal.ToLine();
  EXPECT_FALSE(fs::exists(dir_ / "run/cufile.json"));
}

TEST_F(PrepareLaunchTest, UnlimitedMemlockWithoutCapabilityIsEnough) {
  PrepareResult r = Prepare({false, std::nullopt, std::nullopt});
  EXPECT_TRUE(std::holds_alternative<ExecPlan>(r));
}

TEST_F(PrepareLaunchTest, SmallLimitWithoutCapabilityIsRefusedBeforeAnythingIsWritten) {
  PrepareResult r = Prepare({false, 8ull << 20, 8ull << 20});
  ASSERT_TRUE(std::holds_alternative<Refusal>(r));
  const Refusal& refusal = std::get<Refusal>(r);
  EXPECT_EQ(refusal.cls, RefusalClass::kMemoryLock);
  EXPECT_NE(refusal.message.find("needs 4 GiB"), std::string::npos) << refusal.message;
  EXPECT_FALSE(fs::exists(dir_ / "run/cufile.json"));
}

TEST_F(PrepareLaunchTest, UnwritableConfigDirIsAFilesystemRefusal) {
  fs::create_directories(dir_ / "ro");
  std::ofstream(dir_ / "ro/run") << "a file where the directory should be";
  config_.config_dir = (dir_ / "ro/run").string();
  config_.cufile_log_dir = config_.config_dir + "/log";
  PrepareResult r = Prepare({true, std::nullopt, std::nullopt});
  ASSERT_TRUE(std::holds_alternative<Refusal>(r));
  EXPECT_EQ(std::get<Refusal>(r).cls, RefusalClass::kFilesystem) << std::get<Refusal>(r).message;
}

// versitygw keeps metadata in user xattrs unless told otherwise: on a file system without them the
// launcher refuses with the reason the operator reports, before anything is written; with
// metadata None or Sidecar the same root serves.
TEST_F(PrepareLaunchTest, ARootWithoutUserXattrsIsRefusedUnlessMetadataLivesElsewhere) {
  testing::ScopedRamfs ramfs((dir_ / "gw").string());
  if (!ramfs.mounted()) GTEST_SKIP() << ramfs.error();

  PrepareResult refused = Prepare({true, std::nullopt, std::nullopt});
  ASSERT_TRUE(std::holds_alternative<Refusal>(refused));
  const Refusal& refusal = std::get<Refusal>(refused);
  EXPECT_EQ(refusal.exit_code(), 73);
  EXPECT_EQ(refusal.ToLine().rfind("rdmastack-gateway: refused (backend-metadata): "
                                   "BackendNoUserXattr: the file system of gateway root " +
                                       (dir_ / "gw").string(),
                                   0),
            0u)
      << refusal.ToLine();
  EXPECT_FALSE(fs::exists(dir_ / "run/cufile.json"));

  config_.metadata = MetadataMode::kNone;
  PrepareResult none = Prepare({true, std::nullopt, std::nullopt});
  ASSERT_TRUE(std::holds_alternative<ExecPlan>(none)) << std::get<Refusal>(none).ToLine();
  const std::vector<std::string>& argv = std::get<ExecPlan>(none).argv;
  EXPECT_EQ(std::vector<std::string>(argv.end() - 2, argv.end()),
            (std::vector<std::string>{"--nometa", (dir_ / "gw").string()}));

  config_.metadata = MetadataMode::kSidecar;
  config_.sidecar_template = (dir_ / "meta-{node}").string();
  config_.node_name = "n1";
  config_.create_gwroot = true;
  PrepareResult sidecar = Prepare({true, std::nullopt, std::nullopt});
  ASSERT_TRUE(std::holds_alternative<ExecPlan>(sidecar)) << std::get<Refusal>(sidecar).ToLine();
  const std::vector<std::string>& sargv = std::get<ExecPlan>(sidecar).argv;
  EXPECT_EQ(
      std::vector<std::string>(sargv.end() - 3, sargv.end()),
      (std::vector<std::string>{"--sidecar", (dir_ / "meta-n1").string(), (dir_ / "gw").string()}));
  EXPECT_TRUE(fs::is_directory(dir_ / "meta-n1")) << "the sidecar is made like the root";
}

TEST_F(PrepareLaunchTest, ASidecarInsideTheRootIsAUsageRefusal) {
  config_.metadata = MetadataMode::kSidecar;
  config_.sidecar_template = (dir_ / "gw/.meta").string();
  config_.create_gwroot = true;
  PrepareResult r = Prepare({true, std::nullopt, std::nullopt});
  ASSERT_TRUE(std::holds_alternative<Refusal>(r));
  EXPECT_EQ(std::get<Refusal>(r).cls, RefusalClass::kUsage) << std::get<Refusal>(r).message;
  EXPECT_FALSE(fs::exists(dir_ / "gw/.meta")) << "nothing is made inside the root";
}

}  // namespace
}  // namespace rdmastack::gateway
