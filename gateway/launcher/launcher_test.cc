// Pure pieces of the launcher: configuration, exec plan, credentials, gwroot, memlock, cufile.json.
#include "gateway/launcher/launcher.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "gateway/launcher/cufile_config.h"
#include "gateway/launcher/gwroot.h"
#include "gateway/launcher/launch_config.h"
#include "gateway/launcher/memlock.h"

namespace rdmastack::gateway {
namespace {

Environment RdmaEnv() {
  return {{"RDMASTACK_GW_MODE", "rdma"},
          {"RDMASTACK_GW_GWROOT_TEMPLATE", "/lustre/vol0/kvcache-s3-{node}"},
          {"NODE_NAME", "stg-node1"},
          {"RDMASTACK_GW_RDMA_SELECT", "bond0"},
          {"RDMASTACK_GW_SERVER_LIB_DIR", "/opt/cuobj/lib"},
          {"RDMASTACK_GW_SERVER_LIB_VERSION", "1.2.0.68"},
          {"RDMASTACK_GW_SERVER_LIB_MAJOR", "1"}};
}

TEST(LaunchConfig, RdmaDefaultsFollowTheMajor) {
  StatusOr<LaunchConfig> c = ParseLaunchConfig({}, RdmaEnv());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->s3_port, 7071);
  EXPECT_EQ(c->rdma_port, 19100);
  EXPECT_EQ(c->listen_address, "0.0.0.0");
  EXPECT_EQ(c->gateway_binary, "/usr/local/bin/vgwrdma");
  EXPECT_EQ(c->PoolBytes(), 4ull << 30);
  EXPECT_EQ(c->cufile_log_dir, "/run/rdmastack-gateway/log");

  Environment env = RdmaEnv();
  env["RDMASTACK_GW_SERVER_LIB_VERSION"] = "2.0.0.109";
  env["RDMASTACK_GW_SERVER_LIB_MAJOR"] = "2";
  c = ParseLaunchConfig({}, env);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->s3_port, 7072);
  EXPECT_EQ(c->rdma_port, 19101);
}

TEST(LaunchConfig, FlagsWinOverEnvironment) {
  StatusOr<LaunchConfig> c = ParseLaunchConfig(
      {"--s3-port", "9000", "--listen-address=127.0.0.1", "--pool-buf-count", "2"}, RdmaEnv());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->s3_port, 9000);
  EXPECT_EQ(c->listen_address, "127.0.0.1");
  EXPECT_EQ(c->pool_buf_count, 2u);
}

TEST(LaunchConfig, HttpModeNeedsNoRdmaSettings) {
  StatusOr<LaunchConfig> c =
      ParseLaunchConfig({"--mode", "http", "--gwroot-template", "/data/gw"}, {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->s3_port, 7070);
  EXPECT_EQ(c->gateway_binary, "/usr/local/bin/versitygw");
}

TEST(LaunchConfig, BadInputNamesTheFlagAndEnv) {
  struct Case {
    std::vector<std::string> args;
    std::string erase_env;
    std::string want;
  };
  const Case cases[] = {
      {{"--mode", "tcp"}, "", "must be rdma or http"},
      {{}, "RDMASTACK_GW_RDMA_SELECT", "--rdma-select (RDMASTACK_GW_RDMA_SELECT) is required"},
      {{}, "RDMASTACK_GW_SERVER_LIB_DIR", "--server-lib-dir"},
      {{"--server-lib-major", "2"}, "", "is major 1 but --server-lib-major is 2"},
      {{"--s3-port", "70000"}, "", "--s3-port '70000'"},
      {{"--pool-buf-size", "12k"}, "", "--pool-buf-size '12k'"},
      {{"--listen-address", "localhost"}, "", "must be an IPv4 literal"},
      {{"--health-path", "health"}, "", "must start with '/'"},
      {{"--cufile-log-level", "verbose"}, "", "not one of ERROR"},
      {{"--no-such-flag"}, "", "unknown flag --no-such-flag"},
      {{"--s3-port"}, "", "needs a value"},
      {{"posix"}, "", "unexpected argument 'posix'"},
  };
  for (const Case& c : cases) {
    Environment env = RdmaEnv();
    if (!c.erase_env.empty()) env.erase(c.erase_env);
    StatusOr<LaunchConfig> got = ParseLaunchConfig(c.args, env);
    ASSERT_FALSE(got.ok()) << c.want;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument) << c.want;
    EXPECT_NE(got.status().message().find(c.want), std::string::npos) << got.status().message();
  }
}

TEST(ExecPlan, RdmaModeArgvAndEnvironment) {
  StatusOr<LaunchConfig> c = ParseLaunchConfig({"--listen-address", "127.0.0.1"}, RdmaEnv());
  ASSERT_TRUE(c.ok());
  ExecPlan plan =
      BuildExecPlan(*c, {"/lustre/vol0/kvcache-s3-stg-node1", ""}, "100.64.33.243",
                    {{"LD_LIBRARY_PATH", "/usr/lib/extra"}, {"ROOT_SECRET_ACCESS_KEY", "s"}});
  EXPECT_EQ(plan.argv,
            (std::vector<std::string>{"/usr/local/bin/vgwrdma", "--port", "127.0.0.1:7071", "posix",
                                      "/lustre/vol0/kvcache-s3-stg-node1"}));
  EXPECT_EQ(plan.env_overrides.at("VGW_RDMA_IP"), "100.64.33.243");
  EXPECT_EQ(plan.env_overrides.at("VGW_RDMA_PORT"), "19100");
  EXPECT_EQ(plan.env_overrides.at("VGW_HEALTH"), "/_/health");
  EXPECT_EQ(plan.env_overrides.at("VGW_POOL_BUF_SIZE"), "1073741824");
  EXPECT_EQ(plan.env_overrides.at("VGW_POOL_BUF_COUNT"), "4");
  EXPECT_EQ(plan.env_overrides.at("CUFILE_ENV_PATH_JSON"), "/run/rdmastack-gateway/cufile.json");
  EXPECT_EQ(plan.env_overrides.at("LD_LIBRARY_PATH"), "/opt/cuobj/lib:/usr/lib/extra");
  for (const std::string& a : plan.argv) {
    EXPECT_EQ(a.find("--access"), std::string::npos);
    EXPECT_EQ(a.find("--secret"), std::string::npos);
  }
  EXPECT_EQ(plan.env_overrides.count("ROOT_SECRET_ACCESS_KEY"), 0u);  // inherited, not re-set
}

TEST(ExecPlan, HttpModeSetsOnlyTheHealthPath) {
  StatusOr<LaunchConfig> c = ParseLaunchConfig({"--mode", "http", "--gwroot-template", "/g"}, {});
  ASSERT_TRUE(c.ok());
  ExecPlan plan = BuildExecPlan(*c, {"/g", ""}, "", {});
  EXPECT_EQ(plan.argv[2], "0.0.0.0:7070");
  EXPECT_EQ(plan.env_overrides.size(), 1u);
  EXPECT_TRUE(plan.cufile_json_path.empty());
}

// The posix subcommand's own flags come before the root (urfave/cli stops at the first argument).
TEST(ExecPlan, MetadataModesBecomeThePosixFlags) {
  auto argv = [](std::vector<std::string> flags, const BackendDirs& dirs) {
    flags.insert(flags.end(), {"--mode", "http", "--gwroot-template", "/g"});
    StatusOr<LaunchConfig> c = ParseLaunchConfig(flags, {});
    EXPECT_TRUE(c.ok()) << c.status().message();
    if (!c.ok()) return std::vector<std::string>{};
    return BuildExecPlan(*c, dirs, "", {}).argv;
  };
  const std::vector<std::string> head = {"/usr/local/bin/versitygw", "--port", "0.0.0.0:7070",
                                         "posix"};
  auto with = [&](std::vector<std::string> tail) {
    std::vector<std::string> out = head;
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
  };
  EXPECT_EQ(argv({}, {"/g", ""}), with({"/g"}));
  EXPECT_EQ(argv({"--metadata", "Xattr"}, {"/g", ""}), with({"/g"}));
  EXPECT_EQ(argv({"--metadata", "None"}, {"/g", ""}), with({"--nometa", "/g"}));
  EXPECT_EQ(argv({"--metadata", "sidecar", "--sidecar-template", "/m-{node}"}, {"/g", "/m-n1"}),
            with({"--sidecar", "/m-n1", "/g"}));
}

TEST(LaunchConfig, MetadataModeAndSidecarTemplateGoTogether) {
  for (const std::vector<std::string>& flags :
       std::vector<std::vector<std::string>>{{"--metadata", "Sidecar"},
                                             {"--metadata", "Xattr", "--sidecar-template", "/m"},
                                             {"--sidecar-template", "/m"},
                                             {"--metadata", "Lustre"}}) {
    std::vector<std::string> args = flags;
    args.insert(args.end(), {"--mode", "http", "--gwroot-template", "/g"});
    StatusOr<LaunchConfig> c = ParseLaunchConfig(args, {});
    ASSERT_FALSE(c.ok()) << flags[1];
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(c.status().message().find("--"), std::string::npos) << "names the flag";
  }
}

TEST(Credentials, BothKeysRequiredInEnvironment) {
  EXPECT_TRUE(
      CheckRootCredentials({{"ROOT_ACCESS_KEY_ID", "a"}, {"ROOT_SECRET_ACCESS_KEY", "s"}}).ok());
  EXPECT_TRUE(CheckRootCredentials({{"ROOT_ACCESS_KEY", "a"}, {"ROOT_SECRET_KEY", "s"}}).ok());
  Status s = CheckRootCredentials({{"ROOT_ACCESS_KEY_ID", "a"}, {"ROOT_SECRET_ACCESS_KEY", ""}});
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_NE(s.message().find("ROOT_SECRET_ACCESS_KEY not set"), std::string::npos) << s.message();
  EXPECT_NE(
      CheckRootCredentials({}).message().find("ROOT_ACCESS_KEY_ID and ROOT_SECRET_ACCESS_KEY"),
      std::string::npos);
}

TEST(Gwroot, TemplateExpansion) {
  EXPECT_EQ(*ExpandGwrootTemplate("/l/{node}/s3-{node}", "n1"), "/l/n1/s3-n1");
  EXPECT_EQ(*ExpandGwrootTemplate("/data/gw", ""), "/data/gw");
  EXPECT_NE(ExpandGwrootTemplate("/l/{node}", "").status().message().find("NODE_NAME"),
            std::string::npos);
  EXPECT_NE(ExpandGwrootTemplate("/l/{host}", "n1").status().message().find("unknown placeholder"),
            std::string::npos);
  EXPECT_FALSE(ExpandGwrootTemplate("relative/{node}", "n1").ok());
  EXPECT_FALSE(ExpandGwrootTemplate("/l/{node}", "../etc").ok());
}

// The root comes from a pool's spec: it is opened and created one component at a time, and a
// link on the way (one planted on a shared backend) is refused, never followed.
TEST(Gwroot, EnsureCreatesOnlyThroughRealDirectories) {
  namespace fs = std::filesystem;
  const fs::path base = fs::temp_directory_path() / ("gwroot-ensure-" + std::to_string(::getpid()));
  fs::remove_all(base);
  fs::create_directories(base / "real");
  fs::create_directories(base / "elsewhere");
  fs::create_symlink(base / "elsewhere", base / "link");
  std::ofstream((base / "file").string()) << "x";

  Status via_link = EnsureGwroot((base / "link" / "gw").string(), true);
  EXPECT_EQ(via_link.code(), StatusCode::kFailedPrecondition) << via_link.ToString();
  EXPECT_NE(via_link.message().find("symbolic link"), std::string::npos) << via_link.ToString();
  EXPECT_TRUE(fs::is_empty(base / "elsewhere"));
  EXPECT_EQ(EnsureGwroot(base.string() + "/real/../elsewhere/gw", true).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_TRUE(fs::is_empty(base / "elsewhere"));
  EXPECT_EQ(EnsureGwroot((base / "file").string(), false).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(EnsureGwroot((base / "real" / "missing").string(), false).code(),
            StatusCode::kNotFound);
  EXPECT_TRUE(EnsureGwroot((base / "real" / "a" / "b").string(), true).ok());
  EXPECT_TRUE(fs::is_directory(base / "real" / "a" / "b"));
  fs::remove_all(base);
}

TEST(Gwroot, RequireMountRefusesARootOnTheSystemDisksFileSystem) {
  // A root not created yet, on the same file system as the reference: refused before anything
  // is created, naming the nearest existing parent.
  const std::string base = ::testing::TempDir() + "require-mount-" + std::to_string(::getpid());
  std::filesystem::create_directories(base + "/system");
  const std::string gwroot = base + "/lustre/vol0/kvcache-s3-n1";
  Status s = CheckMountedApartFrom(gwroot, base + "/system");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("(not created; its parent " + base + ") is on the node's system disk"),
            std::string::npos)
      << s.message();
  EXPECT_FALSE(std::filesystem::exists(base + "/lustre"));
  // On another file system (proc stands in for a mounted backend): accepted.
  EXPECT_TRUE(CheckMountedApartFrom("/proc/no-such-dir/kvcache-s3-n1", base + "/system").ok());
  EXPECT_FALSE(CheckMountedApartFrom(gwroot, base + "/no-such-reference").ok());
  std::filesystem::remove_all(base);
}

TEST(Memlock, CapabilityOrLimitMustCoverThePool) {
  const uint64_t pool = 4ull << 30;
  EXPECT_TRUE(CheckMemlock({true, 65536, 65536}, pool).ok());
  EXPECT_TRUE(CheckMemlock({false, std::nullopt, std::nullopt}, pool).ok());
  EXPECT_TRUE(CheckMemlock({false, pool, pool}, pool).ok());
  Status s = CheckMemlock({false, 8ull << 20, 8ull << 20}, pool);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("needs 4 GiB"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("RLIMIT_MEMLOCK is 8 MiB"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("IPC_LOCK"), std::string::npos) << s.message();
}

TEST(Cufile, RendersDeviceAddressAndLogging) {
  std::string json = RenderCufileJson({"100.64.33.243", "/run/gw/log", "ERROR"});
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(json.c_str()).HasParseError()) << json;
  const auto& list = doc["properties"]["rdma_dev_addr_list"];
  ASSERT_TRUE(list.IsArray());
  ASSERT_EQ(list.Size(), 1u);
  EXPECT_STREQ(list[0].GetString(), "100.64.33.243");
  EXPECT_STREQ(doc["logging"]["dir"].GetString(), "/run/gw/log");
  EXPECT_STREQ(doc["logging"]["level"].GetString(), "ERROR");
}

TEST(Refusal, OneLineWithClassAndDistinctCodes) {
  Refusal r{RefusalClass::kLibraryPin, "first\nsecond"};
  EXPECT_EQ(r.ToLine(), "rdmastack-gateway: refused (library-pin): first second");
  EXPECT_EQ(r.exit_code(), 66);
  std::set<int> codes;
  for (RefusalClass c :
       {RefusalClass::kUsage, RefusalClass::kCredentials, RefusalClass::kLibraryPin,
        RefusalClass::kRdmaAddress, RefusalClass::kMemoryLock, RefusalClass::kFilesystem,
        RefusalClass::kExec, RefusalClass::kTls, RefusalClass::kLibraryDigest}) {
    codes.insert(static_cast<int>(c));
  }
  EXPECT_EQ(codes.size(), 9u);
}

}  // namespace
}  // namespace rdmastack::gateway
