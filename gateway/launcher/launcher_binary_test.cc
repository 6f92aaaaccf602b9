// Runs build/bin/rdmastack-gateway in rdma mode against the node agent's fixture hosts, the fake
// libcuobjserver majors and fake vgwrdma binaries built by tests/fixtures/gateway/elf. A started
// "gateway" writes what it received to a report file, so these tests see the exec'd argv and env.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gateway/launcher/test_paths.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::gateway {
namespace {

namespace fs = std::filesystem;
using rdmastack::testing::CommandResult;
using rdmastack::testing::RunCommand;
using testing::ElfFixture;
using testing::NodeIps;
using testing::NodeRoot;

constexpr char kIbBond[] = "storage-cx6-ib-ipoib-bond0-el8-inbox";  // bond0 10.10.0.11, IB up

std::string ReadFile(const fs::path& p) {
  return testing::ReadWholeFile(p.string());
}

class LauncherBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gw-launch-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "lib");
    fs::create_directories(dir_ / "gw-stg-node1");
    fs::copy_file(ElfFixture("lib-v1/libcuobjserver.so.1.2.0.68"),
                  dir_ / "lib/libcuobjserver.so.1.2.0.68");
    fs::create_symlink("libcuobjserver.so.1.2.0.68", dir_ / "lib/libcuobjserver.so.1");
    env_ = {"ROOT_ACCESS_KEY_ID=testkey", "ROOT_SECRET_ACCESS_KEY=testsecret",
            "FAKE_GATEWAY_REPORT=" + Report().string()};
    args_ = {"--mode",
             "rdma",
             "--gateway-binary",
             ElfFixture("bin/fake_vgwrdma_v1"),
             "--listen-address",
             "127.0.0.1",
             "--gwroot-template",
             (dir_ / "gw-{node}").string(),
             "--node-name",
             "stg-node1",
             "--rdma-select",
             "bond0",
             "--host-root",
             NodeRoot(kIbBond),
             "--ips-file",
             NodeIps(kIbBond),
             "--server-lib-dir",
             (dir_ / "lib").string(),
             "--server-lib-version",
             "1.2.0.68",
             "--server-lib-major",
             "1",
             "--config-dir",
             (dir_ / "run").string(),
             "--pool-buf-size",
             "1048576",
             "--pool-buf-count",
             "2"};
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path Report() const { return dir_ / "report"; }

  void Set(const std::string& flag, const std::string& value) {
    for (size_t i = 0; i + 1 < args_.size(); ++i) {
      if (args_[i] == flag) {
        args_[i + 1] = value;
        return;
      }
    }
    args_.push_back(flag);
    args_.push_back(value);
  }

  // Runs the launcher with exactly env_ (env -i), optionally behind a wrapper command.
  CommandResult Run(const std::vector<std::string>& wrapper = {}) {
    std::vector<std::string> argv = wrapper;
    argv.push_back("env");
    argv.push_back("-i");
    argv.insert(argv.end(), env_.begin(), env_.end());
    argv.push_back(testing::GatewayBinary());
    argv.push_back("run");
    argv.insert(argv.end(), args_.begin(), args_.end());
    return RunCommand(argv);
  }

  // One refusal line, the class, the exit code, and the gateway never started.
  void ExpectRefused(const CommandResult& r, int code, const std::string& cls,
                     const std::vector<std::string>& fragments) {
    EXPECT_EQ(r.exit_code, code) << r.err;
    EXPECT_EQ(r.err.rfind("rdmastack-gateway: refused (" + cls + "): ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    for (const std::string& f : fragments) EXPECT_NE(r.err.find(f), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(Report())) << "the gateway was started despite the refusal";
  }

  fs::path dir_;
  std::vector<std::string> env_;
  std::vector<std::string> args_;
};

TEST_F(LauncherBinaryTest, MatchingPairStartsWithRenderedConfig) {
  CommandResult r = Run();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string report = ReadFile(Report());
  // The fake gateway only runs if the loader found libcuobjserver.so.1 via LD_LIBRARY_PATH.
  EXPECT_NE(report.find("library-major 1\n"), std::string::npos) << report;
  EXPECT_NE(report.find("argv[1] --port\nargv[2] 127.0.0.1:7071\nargv[3] posix\nargv[4] " +
                        (dir_ / "gw-stg-node1").string() + "\n"),
            std::string::npos)
      << report;
  EXPECT_EQ(report.find("argv[5]"), std::string::npos) << report;
  EXPECT_NE(report.find("env VGW_RDMA_IP=10.10.0.11\n"), std::string::npos) << report;
  EXPECT_NE(report.find("env VGW_RDMA_PORT=19100\n"), std::string::npos) << report;
  EXPECT_NE(report.find("env VGW_HEALTH=/_/health\n"), std::string::npos) << report;
  EXPECT_NE(report.find("env VGW_POOL_BUF_SIZE=1048576\n"), std::string::npos) << report;
  EXPECT_NE(report.find("env ROOT_ACCESS_KEY_ID=testkey\n"), std::string::npos) << report;
  const fs::path cufile = dir_ / "run/cufile.json";
  EXPECT_NE(report.find("env CUFILE_ENV_PATH_JSON=" + cufile.string() + "\n"), std::string::npos);
  std::string json = ReadFile(cufile);
  EXPECT_NE(json.find("\"rdma_dev_addr_list\": [\n      \"10.10.0.11\"\n    ]"), std::string::npos)
      << json;
  EXPECT_TRUE(fs::is_directory(dir_ / "run/log"));
}

TEST_F(LauncherBinaryTest, RoceAddressFromCidr) {
  Set("--host-root", NodeRoot("gateway-roce-v2-gid3-doca"));
  Set("--ips-file", NodeIps("gateway-roce-v2-gid3-doca"));
  Set("--rdma-select", "192.168.50.0/24");
  CommandResult r = Run();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(ReadFile(Report()).find("env VGW_RDMA_IP=192.168.50.21\n"), std::string::npos);
}

TEST_F(LauncherBinaryTest, MismatchedPairIsRefused) {
  Set("--gateway-binary", ElfFixture("bin/fake_vgwrdma_v2"));
  ExpectRefused(Run(), 66, "library-pin",
                {"fake_vgwrdma_v2 needs libcuobjserver.so.2", "provides libcuobjserver.so.1"});
}

TEST_F(LauncherBinaryTest, DeclaredBuildIsCheckedAgainstTheCompatibilityFile) {
  Set("--compatibility", testing::SourceDir() + "/gateway/compatibility.yaml");
  Set("--gateway-build", "vgwrdma-cuobj2");
  ExpectRefused(Run(), 66, "library-pin",
                {"vgwrdma-cuobj2 links libcuobjserver 2.x, not 1.2.0.68 (major 1)"});
  fs::remove(Report());
  Set("--gateway-build", "vgwrdma-v1.8.0");
  CommandResult r = Run();
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(LauncherBinaryTest, VgwrdmaBuildInHttpModeIsRefused) {
  args_ = {"--mode",
           "http",
           "--gateway-binary",
           ElfFixture("bin/fake_vgwrdma_v1"),
           "--gwroot-template",
           (dir_ / "gw-stg-node1").string()};
  ExpectRefused(Run(), 66, "library-pin",
                {"links libcuobjserver.so.1: it is a vgwrdma build", "--mode rdma"});
}

TEST_F(LauncherBinaryTest, MissingPinnedVersionIsRefused) {
  Set("--server-lib-version", "1.3.0.7");
  ExpectRefused(Run(), 66, "library-pin",
                {"libcuobjserver.so.1.3.0.7 is missing", "found 1.2.0.68"});
}

TEST_F(LauncherBinaryTest, PortDownIsRefused) {
  Set("--host-root", NodeRoot("storage-cx6-ib-port-down"));
  Set("--ips-file", NodeIps("storage-cx6-ib-port-down"));
  Set("--rdma-select", "ib0");
  ExpectRefused(Run(), 67, "rdma-address", {"10.10.0.12 on ib0", "port 1 which is not up"});
}

// The same node as a rail of a multi-rail pool (RDMASTACK_GW_RAIL): the gateway starts on the
// rail's address and says on stderr that its link is down.
TEST_F(LauncherBinaryTest, ARailStartsWithItsPortDownAndSaysSo) {
  Set("--host-root", NodeRoot("storage-cx6-ib-port-down"));
  Set("--ips-file", NodeIps("storage-cx6-ib-port-down"));
  Set("--rdma-select", "ib0");
  env_.push_back("RDMASTACK_GW_RAIL=rail-b");
  CommandResult r = Run();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(ReadFile(Report()).find("env VGW_RDMA_IP=10.10.0.12\n"), std::string::npos);
  EXPECT_NE(r.err.find("rail rail-b starts with its link down: 10.10.0.12 on ib0"),
            std::string::npos)
      << r.err;
}

TEST_F(LauncherBinaryTest, InterfaceWithoutRdmaDeviceIsRefused) {
  Set("--host-root", NodeRoot("node-without-rdma"));
  Set("--ips-file", NodeIps("node-without-rdma"));
  Set("--rdma-select", "eth0");
  ExpectRefused(Run(), 67, "rdma-address", {"eth0, which is not backed by an RDMA port"});
}

TEST_F(LauncherBinaryTest, MissingCredentialsAreRefused) {
  env_.erase(env_.begin());  // ROOT_ACCESS_KEY_ID
  ExpectRefused(Run(), 65, "credentials", {"ROOT_ACCESS_KEY_ID not set", "secretKeyRef"});
}

TEST_F(LauncherBinaryTest, MissingGatewayRootIsRefused) {
  Set("--node-name", "stg-node2");
  ExpectRefused(Run(), 69, "filesystem", {"gw-stg-node2 does not exist", "--create-gwroot"});
}

TEST_F(LauncherBinaryTest, SettingsComeFromTheEnvironment) {
  for (size_t i = 0; i + 1 < args_.size(); ++i) {
    if (args_[i] == "--rdma-select") args_.erase(args_.begin() + i, args_.begin() + i + 2);
  }
  env_.push_back("RDMASTACK_GW_RDMA_SELECT=10.10.0.0/24");
  env_.push_back("RDMASTACK_GW_S3_PORT=7171");
  CommandResult r = Run();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string report = ReadFile(Report());
  EXPECT_NE(report.find("env VGW_RDMA_IP=10.10.0.11\n"), std::string::npos) << report;
  EXPECT_NE(report.find("argv[2] 127.0.0.1:7171\n"), std::string::npos) << report;
}

TEST_F(LauncherBinaryTest, EmptySelectorIsAUsageError) {
  Set("--rdma-select", "");
  ExpectRefused(Run(), 64, "usage", {"--rdma-select (RDMASTACK_GW_RDMA_SELECT) is required"});
}

TEST_F(LauncherBinaryTest, PoolLargerThanMemlockWithoutIpcLockIsRefused) {
  if (::access("/usr/bin/setpriv", X_OK) != 0 || ::access("/usr/bin/prlimit", X_OK) != 0) {
    GTEST_SKIP() << "needs setpriv and prlimit (util-linux)";
  }
  // Without CAP_IPC_LOCK in the bounding set nothing exec'd below can regain it.
  Set("--pool-buf-size", "1073741824");
  Set("--pool-buf-count", "4");
  ExpectRefused(Run({"setpriv", "--inh-caps=-ipc_lock", "--bounding-set=-ipc_lock", "prlimit",
                     "--memlock=65536:65536"}),
                68, "memory-lock", {"needs 4 GiB", "RLIMIT_MEMLOCK is 64 KiB", "IPC_LOCK"});
}

TEST_F(LauncherBinaryTest, DryRunPrintsThePlanWithoutSecrets) {
  args_.push_back("--dry-run");
  CommandResult r = Run();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("env VGW_RDMA_IP=10.10.0.11\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("testsecret"), std::string::npos);
  EXPECT_FALSE(fs::exists(Report()));
}

}  // namespace
}  // namespace rdmastack::gateway
