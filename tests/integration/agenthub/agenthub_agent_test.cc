// The real node agent (`rdmastack-agent run`: nghttp2 + OpenSSL 3, TLS 1.3) against the real hub:
// it verifies the hub with the CA the hub published, proves its identity with a token bound to
// its pod, and its report and heartbeats reach the sink; with a token for another node it is
// refused and says so in its log.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/integration/agenthub/hub_fixture.h"

extern char** environ;

namespace rdmastack::agenthub::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

constexpr char kProfile[] = "storage-cx6-ib-ipoib-bond0-el8-inbox";

class AgentHubAgentTest : public HubFixture {
 protected:
  void TearDown() override {
    for (pid_t pid : pids_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    if (!dir_.empty()) fs::remove_all(dir_);
    HubFixture::TearDown();
  }

  // Runs the agent for `node` with `token`; its stderr goes to <dir>/<name>.log.
  void SpawnAgent(const std::string& name, const std::string& node, const std::string& token) {
    if (dir_.empty()) {
      dir_ = fs::temp_directory_path() / ns_;
      fs::create_directories(dir_);
      std::ofstream(dir_ / "ca.crt") << PublishedCa();
    }
    std::ofstream(dir_ / (name + ".token")) << token;
    const fs::path fixture =
        rdmastack::testing::SourcePath(std::string("tests/fixtures/nodes/") + kProfile);
    std::vector<std::string> argv = {rdmastack::testing::BinaryDir() + "/bin/rdmastack-agent",
                                     "run",
                                     "--hub",
                                     "127.0.0.1:" + std::to_string(hub_->port()),
                                     "--ca-file",
                                     (dir_ / "ca.crt").string(),
                                     "--token-file",
                                     (dir_ / (name + ".token")).string(),
                                     "--node-name",
                                     node,
                                     "--root",
                                     (fixture / "root").string(),
                                     "--ips-file",
                                     (fixture / "ips.txt").string(),
                                     "--probes-file",
                                     (fixture / "probes.txt").string(),
                                     "--role",
                                     "gateway",
                                     "--log-level",
                                     "info"};
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, (dir_ / (name + ".log")).c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    ASSERT_EQ(posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    pids_.push_back(pid);
  }

  std::string AgentLog(const std::string& name) {
    std::ifstream in(dir_ / (name + ".log"));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  fs::path dir_;
  std::vector<pid_t> pids_;
};

TEST_F(AgentHubAgentTest, TheNodeAgentIsAcceptedAndItsReportAndHeartbeatsArrive) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  ASSERT_NO_FATAL_FAILURE(StartHub([](AgentHubOptions& o) { o.streams.heartbeat_seconds = 1; }));
  pb::Requirements gateway;
  gateway.set_gateway(true);
  hub_->Publish(node_a_, gateway);
  const std::string uid = CreatePod("agent-a", node_a_);
  ASSERT_NO_FATAL_FAILURE(SpawnAgent("a", node_a_, BoundToken("agent-a", uid)));

  EXPECT_TRUE(sink_.WaitFor("connected " + node_a_ + " agent-a", seconds(30))) << AgentLog("a");
  const std::string report = sink_.WaitForPrefix("report " + node_a_ + " ", seconds(30));
  EXPECT_FALSE(report.empty()) << AgentLog("a");
  EXPECT_GT(report.size(), std::string("report " + node_a_ + " ").size() + 32)
      << "the agent's report carries its SHA-256 content hash";
  EXPECT_TRUE(sink_.WaitFor("heartbeat " + node_a_, seconds(10))) << AgentLog("a");
  EXPECT_EQ(hub_->connected_agents(), 1u);
}

TEST_F(AgentHubAgentTest, AnAgentClaimingAnotherNodeIsRefusedAndLogsWhy) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  ASSERT_NO_FATAL_FAILURE(StartHub());
  const std::string uid = CreatePod("agent-a", node_a_);
  ASSERT_NO_FATAL_FAILURE(SpawnAgent("liar", node_b_, BoundToken("agent-a", uid)));
  EXPECT_TRUE(rdmastack::testing::Eventually(
      [&] { return AgentLog("liar").find("PERMISSION_DENIED") != std::string::npos; }, seconds(30)))
      << AgentLog("liar");
  std::printf("%s", AgentLog("liar").c_str());
  EXPECT_TRUE(sink_.Log().empty());
}

}  // namespace
}  // namespace rdmastack::agenthub::testing
