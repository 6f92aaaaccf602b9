// Runs the built rdmastack-client against a fixture host and a loopback gateway: state.json turns
// ready and the files appear; the gateway stops and readiness follows; SIGTERM stops it and leaves
// the files; `uninstall` removes them and turns ready.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "agents/client/state.h"
#include "agents/client/tests/test_util.h"

extern char** environ;

namespace rdmastack::client {
namespace {

using testing::EndpointsJson;
using testing::FakeClientLibrary;
using testing::HealthServer;
using testing::NodeFixture;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

std::string ClientBinary() {
  return ::rdmastack::testing::BinaryDir() + "/bin/rdmastack-client";
}

// Polls until `done` holds, at most `limit`.
bool Within(std::chrono::seconds limit, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

class Process {
 public:
  Process(const std::vector<std::string>& argv, const std::string& log) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0].c_str(), &actions, nullptr, args.data(), environ) != 0) pid_ = 0;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~Process() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  bool started() const { return pid_ > 0; }
  // Exit status after `sig`, or -1 when it did not exit within the limit.
  int Signal(int sig, std::chrono::seconds limit) {
    ::kill(pid_, sig);
    int status = 0;
    const bool done = Within(limit, [&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; });
    if (!done) return -1;
    exited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = 0;
  bool exited_ = false;
};

// `rdmastack-client run` over node fixture `fixture` for profile `profile` (Auto transport and
// GID, 192Mi transfers), polling every 200 ms; `extra` goes last.
std::vector<std::string> RunArgs(const std::string& profile, const std::string& node,
                                 const std::string& fixture, const std::string& max_distance,
                                 const std::string& endpoints_file, const std::string& install,
                                 const std::string& state_dir,
                                 const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {ClientBinary(),
                                   "run",
                                   "--profile",
                                   profile,
                                   "--node",
                                   node,
                                   "--root",
                                   fixture + "/root",
                                   "--ips-file",
                                   fixture + "/ips.txt",
                                   "--probes-file",
                                   fixture + "/probes.txt",
                                   "--transport",
                                   "Auto",
                                   "--memory-registration",
                                   "Auto",
                                   "--max-transfer-size",
                                   "192Mi",
                                   "--max-gpu-nic-distance",
                                   max_distance,
                                   "--gid-index",
                                   "Auto",
                                   "--endpoints-file",
                                   endpoints_file,
                                   "--install-dir",
                                   install,
                                   "--state-dir",
                                   state_dir,
                                   "--interval",
                                   "200ms"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(ClientBinary, ReadyThenUnreachableThenStopsKeepingItsFilesThenUninstall) {
  ASSERT_TRUE(fs::exists(ClientBinary())) << "build rdmastack-client first";
  TempDir tmp;
  HealthServer gateway;
  WriteFile(tmp / "endpoints/endpoints.json", EndpointsJson(gateway.port()));
  fs::create_directories(tmp / "cuobjclient");
  fs::copy_file(FakeClientLibrary(), tmp / "cuobjclient/libcuobjclient.so.1.2.0.68");
  const std::string fixture = NodeFixture("gpu-client-h100-dmabuf-open-inbox");
  const std::string install = tmp / "host/var/lib/rdmastack/ml.gpudirect";
  const std::string state_dir = tmp / "state";
  const std::string log = tmp / "client.log";
  Process client(RunArgs("ml/gpudirect", "gpu-node-0", fixture, "PXB",
                         tmp / "endpoints/endpoints.json", install, state_dir,
                         {"--host-install-dir", "/var/lib/rdmastack/ml.gpudirect", "--library-dir",
                          tmp / "cuobjclient"}),
                 log);
  ASSERT_TRUE(client.started());
  auto state = [&]() -> ClientState {
    auto s = ParseStateJson(ReadFile(state_dir + "/state.json"));
    return s.ok() ? *s : ClientState{};
  };
  auto ready_probe = [&](const std::string& max_age) {
    return ::rdmastack::testing::RunCommand(
        {ClientBinary(), "ready", "--state-dir", state_dir, "--max-age", max_age});
  };

  ASSERT_TRUE(Within(std::chrono::seconds(20), [&] { return state().ready; }))
      << ReadFile(state_dir + "/state.json") << "\n"
      << ReadFile(log);
  const ClientState ready = state();
  EXPECT_EQ(ready.reason, "Ready");
  EXPECT_EQ(ready.transport, "GPUDirect");
  EXPECT_EQ(ready.memory_registration, "DMABuf");
  EXPECT_EQ(ready.rdma_device, "ibp25s0");
  EXPECT_EQ(ready.reachable, 1);
  EXPECT_GT(gateway.health_requests(), 0);
  EXPECT_NE(
      ReadFile(install + "/cufile.json").find("\"dir\": \"/var/lib/rdmastack/ml.gpudirect/log\""),
      std::string::npos);
  EXPECT_EQ(ReadFile(install + "/cuobj.json"), ReadFile(install + "/cufile.json"));
  EXPECT_NE(ReadFile(install + "/client.env")
                .find("AWS_ENDPOINT_URL=http://127.0.0.1:" + std::to_string(gateway.port()) + "\n"),
            std::string::npos);
  EXPECT_NE(ReadFile(install + "/endpoints.json").find("ml/kvcache"), std::string::npos);
  EXPECT_EQ(fs::read_symlink(install + "/lib/libcuobjclient.so.1"), "libcuobjclient.so.1.2.0.68");
  const auto ok = ready_probe("30s");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;

  // The gateway goes away: readiness follows within a few passes, the files stay.
  const std::string env_before = ReadFile(install + "/client.env");
  gateway.Stop();
  ASSERT_TRUE(Within(std::chrono::seconds(20),
                     [&] {
                       const ClientState s = state();
                       return !s.ready && s.reason == "EndpointsUnreachable";
                     }))
      << ReadFile(state_dir + "/state.json") << "\n"
      << ReadFile(log);
  EXPECT_EQ(state().reachable, 0);
  EXPECT_EQ(ReadFile(install + "/client.env"), env_before);
  const auto down = ready_probe("30s");
  EXPECT_EQ(down.exit_code, 1);
  EXPECT_EQ(down.out.rfind("not ready: EndpointsUnreachable: ", 0), 0u) << down.out;

  // SIGTERM (a replaced pod): the files the workloads mounted stay as they are.
  const std::string cuobj_before = ReadFile(install + "/cuobj.json");
  EXPECT_EQ(client.Signal(SIGTERM, std::chrono::seconds(20)), 0) << ReadFile(log);
  EXPECT_EQ(ReadFile(install + "/client.env"), env_before);
  EXPECT_EQ(ReadFile(install + "/cuobj.json"), cuobj_before);
  EXPECT_TRUE(fs::exists(install + "/lib/libcuobjclient.so.1.2.0.68"));
  const std::string logged = ReadFile(log);
  EXPECT_NE(logged.find("readiness: ready (Ready)"), std::string::npos) << logged;
  EXPECT_NE(logged.find("readiness: not ready (EndpointsUnreachable)"), std::string::npos);
  EXPECT_NE(logged.find("stays installed for the workloads that use it"), std::string::npos)
      << logged;
  EXPECT_EQ(logged.find("uninstall: removed"), std::string::npos) << logged;

  // Nobody writes state.json any more: the readiness probe calls it stale.
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  const auto stale = ready_probe("1s");
  EXPECT_EQ(stale.exit_code, 1);
  EXPECT_NE(stale.out.find("stale"), std::string::npos) << stale.out;

  // The operator's uninstall pod: removes only what a client installed, then reports ready.
  const std::string uninstall_log = tmp / "uninstall.log";
  Process uninstall({ClientBinary(), "uninstall", "--install-dir", install, "--state-dir",
                     state_dir, "--interval", "200ms"},
                    uninstall_log);
  ASSERT_TRUE(uninstall.started());
  ASSERT_TRUE(Within(std::chrono::seconds(20),
                     [&] { return state().reason == "Uninstalled" && state().ready; }))
      << ReadFile(state_dir + "/state.json") << ReadFile(uninstall_log);
  EXPECT_FALSE(fs::exists(install)) << ReadFile(uninstall_log);
  EXPECT_TRUE(fs::exists(tmp / "host/var/lib/rdmastack"));  // only what a client installed went
  const auto clean = ready_probe("30s");
  EXPECT_EQ(clean.exit_code, 0) << clean.out;
  EXPECT_EQ(uninstall.Signal(SIGTERM, std::chrono::seconds(20)), 0) << ReadFile(uninstall_log);
  EXPECT_NE(ReadFile(uninstall_log).find("uninstall: removed " + install + "/client.env"),
            std::string::npos)
      << ReadFile(uninstall_log);
}

// The devices cufile.json lists (rdma_dev_addr_list), in order.
std::vector<std::string> ListedDevices(const std::string& cufile) {
  rapidjson::Document doc;
  doc.Parse(cufile.c_str());
  std::vector<std::string> out;
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("properties")) return out;
  const auto& props = doc["properties"];
  if (!props.IsObject() || !props.HasMember("rdma_dev_addr_list")) return out;
  for (const auto& d : props["rdma_dev_addr_list"].GetArray()) out.push_back(d.GetString());
  return out;
}

// The HGX node's client follows the pool's networks as the operator publishes them: on the
// storage networks each GPU takes its nearest storage port; when the pool moves to the compute
// rails, its eight compute NICs. (maxGpuNicDistance SYS, so both are GPU-direct.)
TEST(ClientBinary, AnHgxClientListsEachGpusNicOnThePoolsNetworks) {
  ASSERT_TRUE(fs::exists(ClientBinary())) << "build rdmastack-client first";
  TempDir tmp;
  HealthServer gateway;
  // The gateway on rail a answers; rail z's (no NIC of the node is on it) would not.
  std::string endpoints = EndpointsJson(gateway.port());
  endpoints.insert(endpoints.find(R"(,"libraryVersion")"), R"(,"rail":"a")");
  endpoints.insert(endpoints.rfind(']'),
                   R"(,{"node":"stg-node-9","address":"127.0.0.1","s3Port":1,"rail":"z"})");
  endpoints.pop_back();
  auto with_networks = [&](const std::string& networks) {
    return endpoints + R"(,"networks":)" + networks + "}";
  };
  WriteFile(tmp / "endpoints/endpoints.json",
            with_networks(R"([{"rail":"a","cidr":"198.18.0.0/24"},)"
                          R"({"rail":"b","cidr":"198.18.2.0/24"}])"));
  const std::string fixture = NodeFixture("gpu-client-hgx-h100-8gpu-8nic");
  const std::string install = tmp / "install";
  const std::string log = tmp / "client.log";
  Process client(
      RunArgs("ml/hgx", "gpu-node-4", fixture, "SYS", tmp / "endpoints/endpoints.json", install,
              tmp / "state", {"--host-install-dir", "/var/lib/rdmastack/ml.hgx"}),
      log);
  ASSERT_TRUE(client.started());
  const std::vector<std::string> storage = {"mlx5_1", "mlx5_7"};
  ASSERT_TRUE(Within(std::chrono::seconds(20),
                     [&] { return ListedDevices(ReadFile(install + "/cufile.json")) == storage; }))
      << ReadFile(install + "/cufile.json") << ReadFile(log);
  // The log line that names the rail may land just after the file does.
  EXPECT_TRUE(Within(std::chrono::seconds(20), [&] {
    return ReadFile(log).find("rail a, 198.18.0.0/24") != std::string::npos;
  })) << ReadFile(log);
  auto state = [&]() -> ClientState {
    auto s = ParseStateJson(ReadFile(tmp / "state/state.json"));
    return s.ok() ? *s : ClientState{};
  };
  // Only rail a's gateway is the client's: it is Ready on it, rail z's is not asked.
  EXPECT_TRUE(Within(std::chrono::seconds(20), [&] { return state().ready; }))
      << ReadFile(tmp / "state/state.json") << ReadFile(log);
  EXPECT_EQ(state().endpoints, 1);
  EXPECT_EQ(ListedDevices(ReadFile(install + "/cufile.json")), storage);

  WriteFile(tmp / "endpoints/endpoints.json", with_networks(R"([{"cidr":"10.40.0.0/13"}])"));
  const std::vector<std::string> compute = {"mlx5_0", "mlx5_3", "mlx5_4",  "mlx5_5",
                                            "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"};
  EXPECT_TRUE(Within(std::chrono::seconds(20),
                     [&] { return ListedDevices(ReadFile(install + "/cufile.json")) == compute; }))
      << ReadFile(install + "/cufile.json") << ReadFile(log);
  // state.json follows cufile.json within the same pass, after the probes: wait for it.
  EXPECT_TRUE(Within(std::chrono::seconds(20), [&] { return state().endpoints == 2; }))
      << "on no named rail, every endpoint is the client's: " << ReadFile(tmp / "state/state.json")
      << ReadFile(log);
  EXPECT_EQ(client.Signal(SIGTERM, std::chrono::seconds(20)), 0) << ReadFile(log);
}

// A refused library image: the client writes nothing, says why on its last line (the operator
// reads it as the container's termination message) and exits 3.
TEST(ClientBinary, ARefusedLibraryImageStopsTheClientBeforeItWritesAnything) {
  TempDir tmp;
  const fs::path image = tmp.path() / "cuobjclient";
  fs::create_directories(image);
  fs::copy_file(FakeClientLibrary(), image / "libcuobjclient.so.1.2.0.68");
  fs::create_symlink("/host/etc/shadow", image / "libcuobjclient.so.1");
  WriteFile(image / "libsuid.so", "x");
  ASSERT_EQ(::chmod((image / "libsuid.so").c_str(), 04755), 0);
  const std::string install = tmp / "host/var/lib/rdmastack/ml.hostile";
  const auto run = ::rdmastack::testing::RunCommand(
      {ClientBinary(), "run", "--profile", "ml/hostile", "--node", "n1", "--install-dir", install,
       "--library-dir", image.string(), "--state-dir", tmp / "state", "--interval", "1s"});
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err;
  std::string last = run.err;
  while (!last.empty() && last.back() == '\n') last.pop_back();
  last = last.substr(last.rfind('\n') + 1);
  EXPECT_EQ(last.rfind("LibraryRefused: the library image is refused. ", 0), 0u) << run.err;
  EXPECT_NE(last.find("'libcuobjclient.so.1' -> '/host/etc/shadow' leaves the image"),
            std::string::npos)
      << last;
  EXPECT_NE(last.find("'libsuid.so' has mode 4755"), std::string::npos) << last;
  EXPECT_FALSE(fs::exists(install));
  EXPECT_FALSE(fs::exists(tmp / "state"));
}

// A library of other bytes than the pinned ones: the same stop, with its own reason, before the
// image's shape is judged.
TEST(ClientBinary, ALibraryOfOtherBytesStopsTheClientWithTheDigestReason) {
  TempDir tmp;
  const fs::path image = tmp.path() / "cuobjclient";
  fs::create_directories(image);
  fs::copy_file(FakeClientLibrary(), image / "libcuobjclient.so.1.2.0.68");
  const std::string pinned = std::string(64, 'a');
  const std::string install = tmp / "host/var/lib/rdmastack/ml.pinned";
  const auto run = ::rdmastack::testing::RunCommand(
      {ClientBinary(), "run", "--profile", "ml/pinned", "--node", "n1", "--install-dir", install,
       "--library-dir", image.string(), "--state-dir", tmp / "state", "--interval", "1s",
       "--library-sha256", "libcuobjclient.so.1.2.0.68=" + pinned});
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err;
  std::string last = run.err;
  while (!last.empty() && last.back() == '\n') last.pop_back();
  last = last.substr(last.rfind('\n') + 1);
  EXPECT_EQ(last.rfind("LibraryDigestMismatch: ", 0), 0u) << run.err;
  EXPECT_NE(last.find("libcuobjclient.so.1.2.0.68"), std::string::npos) << last;
  EXPECT_NE(last.find(pinned), std::string::npos) << "names the expected digest: " << last;
  EXPECT_FALSE(fs::exists(install));
}

TEST(ClientBinary, VersionUsageAndReadyWithoutState) {
  const auto version = ::rdmastack::testing::RunCommand({ClientBinary(), "--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("rdmastack-client ", 0), 0u) << version.out;
  const auto usage = ::rdmastack::testing::RunCommand({ClientBinary(), "run", "--profile", "x"});
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_NE(usage.err.find("NAMESPACE/NAME"), std::string::npos) << usage.err;
  TempDir tmp;
  const auto none =
      ::rdmastack::testing::RunCommand({ClientBinary(), "ready", "--state-dir", tmp / "none"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.out.rfind("not ready: ", 0), 0u) << none.out;
}

}  // namespace
}  // namespace rdmastack::client
