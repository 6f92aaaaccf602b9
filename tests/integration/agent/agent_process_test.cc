// The rdmastack-agent binary itself (`run`) against the in-test hub: signals, change-driven
// reports from a real probe of a fixture tree, and startup errors.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/harness/cluster_env.h"
#include "tests/integration/agent/test_hub.h"

extern char** environ;

namespace rdmastack::agent {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using testing::Count;
using testing::FakeHub;
using testing::LastOf;
using testing::pb::AgentMessage;

constexpr char kProfile[] = "gpu-client-rtxa6000-bar1-256m-peermem-mofed";

std::string AgentBinary() {
  return ::rdmastack::testing::BinaryDir() + "/bin/rdmastack-agent";
}

// Waits up to `timeout` for the child; returns its wait status, or -1 if it is still running.
int WaitExit(pid_t pid, milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return -1;
}

class AgentProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pki_.Make("agent-process-pki")) << "openssl failed";
    // A private copy of the fixture, so the test can change the node under the agent.
    fixture_ = pki_.dir / "node";
    fs::copy(::rdmastack::testing::SourcePath(std::string("tests/fixtures/nodes/") + kProfile),
             fixture_, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    server_ = testing::StartHub(pki_, &hub_, &port_);
    ASSERT_TRUE(server_);
  }
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    server_->Shutdown(std::chrono::system_clock::now() + milliseconds(200));
    fs::remove_all(pki_.dir);
  }

  void Spawn(const std::string& ca_file) {
    std::vector<std::string> argv = {AgentBinary(),
                                     "run",
                                     "--hub",
                                     "127.0.0.1:" + std::to_string(port_),
                                     "--ca-file",
                                     ca_file,
                                     "--token-file",
                                     (pki_.dir / "token").string(),
                                     "--node-name",
                                     "gpu-node-5",
                                     "--root",
                                     (fixture_ / "root").string(),
                                     "--ips-file",
                                     (fixture_ / "ips.txt").string(),
                                     "--probes-file",
                                     (fixture_ / "probes.txt").string(),
                                     "--probe-interval",
                                     "60s",
                                     "--log-level",
                                     "warn"};
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ASSERT_EQ(posix_spawn(&pid_, args[0], nullptr, nullptr, args.data(), environ), 0);
  }

  testing::TestPki pki_;
  fs::path fixture_;
  FakeHub hub_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  pid_t pid_ = -1;
};

TEST_F(AgentProcessTest, SighupReprobesAndAChangedNodeIsReportedOnTheSameStream) {
  Spawn((pki_.dir / "ca.pem").string());
  ASSERT_TRUE(hub_.WaitFor([](auto& log) { return Count(log, AgentMessage::kReport) == 1; },
                           milliseconds(15000)));
  const AgentMessage first = LastOf(hub_.Log(), AgentMessage::kReport);
  const std::string first_hash = first.report().content_hash();
  EXPECT_EQ(first.report().node_name(), "gpu-node-5");

  // The kernel changes under the agent; the next probe is an hour away, SIGHUP asks for it now.
  std::ofstream(fixture_ / "root/proc/sys/kernel/osrelease") << "6.8.0-99-generic\n";
  ASSERT_EQ(::kill(pid_, SIGHUP), 0);
  ASSERT_TRUE(hub_.WaitFor([](auto& log) { return Count(log, AgentMessage::kReport) == 2; },
                           milliseconds(10000)));
  const auto log = hub_.Log();
  const AgentMessage second = LastOf(log, AgentMessage::kReport);
  EXPECT_EQ(second.report().host().kernel_release(), "6.8.0-99-generic");
  EXPECT_NE(second.report().content_hash(), first_hash);
  EXPECT_EQ(Count(log, AgentMessage::kHello), 1);  // same stream, no reconnect

  ASSERT_EQ(::kill(pid_, SIGTERM), 0);
  const int status = WaitExit(pid_, milliseconds(5000));
  ASSERT_NE(status, -1) << "agent still running 5 s after SIGTERM";
  pid_ = -1;
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST_F(AgentProcessTest, UnchangedNodeSendsNoSecondReportOnSighup) {
  Spawn((pki_.dir / "ca.pem").string());
  ASSERT_TRUE(hub_.WaitFor([](auto& log) { return Count(log, AgentMessage::kReport) == 1; },
                           milliseconds(15000)));
  ASSERT_EQ(::kill(pid_, SIGHUP), 0);
  // Heartbeats keep coming (the hub asks for one per second); the report does not repeat.
  ASSERT_TRUE(hub_.WaitFor([](auto& log) { return Count(log, AgentMessage::kHeartbeat) >= 3; },
                           milliseconds(10000)));
  EXPECT_EQ(Count(hub_.Log(), AgentMessage::kReport), 1);
}

TEST_F(AgentProcessTest, UnusableCaFileIsAStartupErrorNamingTheFlag) {
  std::ofstream(pki_.dir / "not-a-ca.pem") << "hello\n";
  const auto r = ::rdmastack::testing::RunCommand(
      {AgentBinary(), "run", "--hub", "127.0.0.1:" + std::to_string(port_), "--ca-file",
       (pki_.dir / "not-a-ca.pem").string(), "--token-file", (pki_.dir / "token").string(),
       "--node-name", "gpu-node-5", "--root", (fixture_ / "root").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--ca-file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no PEM certificate"), std::string::npos) << r.err;
  EXPECT_TRUE(hub_.Log().empty());
}

}  // namespace
}  // namespace rdmastack::agent

namespace rdmastack::agent {
namespace {

// What a newcomer types first: help at the top level is the usage on stdout, exit 0; an unknown
// command still says so and exits 2.
TEST(AgentCommandLine, HelpAtTheTopLevelPrintsTheUsage) {
  for (const char* help : {"--help", "-h", "help"}) {
    const auto r = ::rdmastack::testing::RunCommand({AgentBinary(), help});
    EXPECT_EQ(r.exit_code, 0) << help << ": " << r.err;
    EXPECT_NE(r.out.find("rdmastack-agent check"), std::string::npos) << help << ": " << r.out;
    EXPECT_EQ(r.err.find("unknown command"), std::string::npos) << help << ": " << r.err;
  }
  const auto bad = ::rdmastack::testing::RunCommand({AgentBinary(), "chekc"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown command 'chekc'"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace rdmastack::agent
