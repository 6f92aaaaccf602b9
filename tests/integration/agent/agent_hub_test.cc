// AgentDaemon <-> a real gRPC AgentHub server with TLS on loopback.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <thread>

#include "agents/node-agent/daemon/agent_daemon.h"
#include "agents/proto/agenthub.grpc.pb.h"
#include "tests/integration/agent/test_hub.h"

namespace rdmastack::agent {
namespace {

namespace fs = std::filesystem;
namespace pb = ::rdmastack::agent::v1;
using std::chrono::milliseconds;
using testing::Count;
using testing::FakeHub;
using testing::LastOf;
using testing::TestPki;

// Reports whose content the test controls.
class FakeSource final : public ReportSource {
 public:
  ProbeResult Build(const std::optional<pb::Requirements>& requirements) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++builds_;
    if (builds_ == 1) first_had_requirements_ = requirements.has_value();
    ProbeResult r;
    r.report.set_node_name("gpu-node-7");
    r.report.mutable_host()->set_kernel_release(kernel_);
    r.report.set_content_hash("hash-" + kernel_);
    if (xmit_) {
      auto* set = r.counters.add_ports();
      set->set_device("mlx5_0");
      set->set_port(1);
      auto* c = set->add_counters();
      c->set_name("port_xmit_data");
      c->set_value(*xmit_);
    }
    return r;
  }
  // From now on the node has a port whose port_xmit_data is `value`.
  void SetXmit(uint64_t value) {
    std::lock_guard<std::mutex> lock(mu_);
    xmit_ = value;
  }
  bool first_had_requirements() {
    std::lock_guard<std::mutex> lock(mu_);
    return first_had_requirements_;
  }
  void SetKernel(std::string k) {
    std::lock_guard<std::mutex> lock(mu_);
    kernel_ = std::move(k);
  }

 private:
  std::mutex mu_;
  std::string kernel_ = "6.8.0";
  std::optional<uint64_t> xmit_;  // no port counters until set
  int builds_ = 0;
  bool first_had_requirements_ = false;
};

class AgentHubTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(pki_.Make("agent-pki")) << "openssl failed"; }
  void TearDown() override { fs::remove_all(pki_.dir); }

  std::unique_ptr<grpc::Server> StartHub(FakeHub* hub, int* port) {
    return testing::StartHub(pki_, hub, port);
  }

  DaemonOptions Options(int port) {
    DaemonOptions o;
    o.hub_address = "127.0.0.1:" + std::to_string(port);
    o.ca_file = (pki_.dir / "ca.pem").string();
    o.tls_server_name = "agenthub.test";
    o.token_file = (pki_.dir / "token").string();
    o.node_name = "gpu-node-7";
    o.probe_interval = milliseconds(100);
    o.default_heartbeat = milliseconds(1000);
    o.backoff = BackoffPolicy{milliseconds(50), milliseconds(200), 2.0, 0.2};
    o.requirements_wait = milliseconds(0);  // FakeHub sends no requirements unless told to
    return o;
  }

  TestPki pki_;
};

// The hub follows its Ack with the node's requirements: the first report is built against them,
// as soon as they arrive, not against none (which the next report would replace at once).
TEST_F(AgentHubTest, FirstReportWaitsForTheRequirementsThatFollowTheAck) {
  FakeHub hub;
  int port = 0;
  auto server = StartHub(&hub, &port);
  ASSERT_TRUE(server);
  pb::HubMessage requirements;
  requirements.mutable_requirements()->set_gateway(true);
  hub.Send(requirements);  // queued: goes out right after the Ack
  FakeSource source;
  DaemonOptions o = Options(port);
  o.requirements_wait = milliseconds(60'000);
  AgentDaemon daemon(o, &source, &RealClock::Instance());
  std::thread runner([&] { (void)daemon.Run(); });
  // Well before requirements_wait: the requirements ended the wait.
  EXPECT_TRUE(hub.WaitFor([](auto& log) { return Count(log, pb::AgentMessage::kReport) >= 1; },
                          milliseconds(10'000)));
  EXPECT_TRUE(source.first_had_requirements());
  daemon.Stop();
  runner.join();
}

TEST_F(AgentHubTest, HelloReportsOnChangeHeartbeatsCommandsAndReconnect) {
  FakeHub hub;
  int port = 0;
  auto server = StartHub(&hub, &port);
  ASSERT_TRUE(server);
  FakeSource source;
  AgentDaemon daemon(Options(port), &source, &RealClock::Instance());
  Status run_status;
  std::thread runner([&] { run_status = daemon.Run(); });

  ASSERT_TRUE(hub.WaitFor([](auto& log) { return Count(log, pb::AgentMessage::kReport) >= 1; },
                          milliseconds(10000)));
  auto log = hub.Log();
  ASSERT_TRUE(log[0].has_hello());
  EXPECT_EQ(log[0].hello().node_name(), "gpu-node-7");
  EXPECT_EQ(log[0].hello().token(), "test-token-123");  // trailing newline stripped
  EXPECT_FALSE(log[0].hello().agent_version().empty());
  EXPECT_EQ(log[1].report().content_hash(), "hash-6.8.0");
  EXPECT_GT(log[1].report().probed_unix_millis(), 0);

  // Heartbeats at the Ack's 1 s cadence, carrying the last hash; no report without a change even
  // though the agent re-probes every 100 ms.
  ASSERT_TRUE(hub.WaitFor([](auto& log) { return Count(log, pb::AgentMessage::kHeartbeat) >= 2; },
                          milliseconds(5000)));
  log = hub.Log();
  EXPECT_EQ(Count(log, pb::AgentMessage::kReport), 1);
  EXPECT_EQ(Count(log, pb::AgentMessage::kPortCounters), 0);  // a node without counters
  EXPECT_GE(daemon.stats().probes.load(), 10);
  for (const auto& m : log) {
    if (m.has_heartbeat()) {
      EXPECT_EQ(m.heartbeat().report_hash(), "hash-6.8.0");
    }
  }

  // A change is reported at the next probe.
  source.SetKernel("6.8.1");
  ASSERT_TRUE(hub.WaitFor([](auto& log) { return Count(log, pb::AgentMessage::kReport) >= 2; },
                          milliseconds(5000)));
  EXPECT_EQ(hub.Log().back().report().content_hash(), "hash-6.8.1");

  // Commands come back with a result.
  pb::HubMessage cmd;
  cmd.mutable_command()->set_id("reprobe-1");
  cmd.mutable_command()->set_kind(pb::Command::REPROBE);
  hub.Send(cmd);
  ASSERT_TRUE(hub.WaitFor(
      [](auto& log) {
        for (const auto& m : log) {
          if (m.has_command_result() && m.command_result().id() == "reprobe-1" &&
              m.command_result().ok())
            return true;
        }
        return false;
      },
      milliseconds(5000)));

  // The hub goes away and comes back on the same port: the agent reconnects, says Hello again and
  // resends the full report although nothing changed.
  server->Shutdown(std::chrono::system_clock::now() + milliseconds(200));
  server->Wait();
  FakeHub hub2;
  auto server2 = StartHub(&hub2, &port);
  ASSERT_TRUE(server2);
  ASSERT_TRUE(hub2.WaitFor([](auto& log) { return Count(log, pb::AgentMessage::kReport) >= 1; },
                           milliseconds(15000)));
  log = hub2.Log();
  EXPECT_TRUE(log[0].has_hello());
  EXPECT_EQ(log[1].report().content_hash(), "hash-6.8.1");
  EXPECT_GE(daemon.stats().connects.load(), 2);

  daemon.Stop();
  runner.join();
  EXPECT_TRUE(run_status.ok()) << run_status.ToString();
  server2->Shutdown(std::chrono::system_clock::now() + milliseconds(200));
}

// Port counters move on every probe of a busy port: they go in their own small message, once per
// probe in which they moved, and never bring the report (and the operator's status pass) along.
TEST_F(AgentHubTest, PortCountersGoApartAndOnlyWhenTheyMove) {
  FakeHub hub;
  int port = 0;
  auto server = StartHub(&hub, &port);
  ASSERT_TRUE(server);
  FakeSource source;
  source.SetXmit(100);
  AgentDaemon daemon(Options(port), &source, &RealClock::Instance());
  std::thread runner([&] { (void)daemon.Run(); });

  ASSERT_TRUE(
      hub.WaitFor([](auto& log) { return Count(log, pb::AgentMessage::kPortCounters) >= 1; },
                  milliseconds(10000)));
  auto log = hub.Log();
  ASSERT_GE(log.size(), 3u);
  EXPECT_TRUE(log[1].has_report());  // the facts first, then the counters
  ASSERT_TRUE(log[2].has_port_counters());
  EXPECT_EQ(log[2].port_counters().ports(0).counters(0).value(), 100u);
  EXPECT_GT(log[2].port_counters().sampled_unix_millis(), 0);

  // Ten probes with the same counters send nothing more.
  const int probes = daemon.stats().probes.load();
  ASSERT_TRUE(hub.WaitFor([&](auto&) { return daemon.stats().probes.load() >= probes + 10; },
                          milliseconds(5000)));
  EXPECT_EQ(Count(hub.Log(), pb::AgentMessage::kPortCounters), 1);

  // Moved counters go at the next probe; the report does not.
  source.SetXmit(250);
  ASSERT_TRUE(
      hub.WaitFor([](auto& log) { return Count(log, pb::AgentMessage::kPortCounters) >= 2; },
                  milliseconds(5000)));
  log = hub.Log();
  EXPECT_EQ(
      LastOf(log, pb::AgentMessage::kPortCounters).port_counters().ports(0).counters(0).value(),
      250u);
  EXPECT_EQ(Count(log, pb::AgentMessage::kReport), 1);
  // The hub can see the message before the agent's write returns and counts it as sent.
  for (int i = 0; i < 500 && daemon.stats().counters_sent.load() < 2; ++i)
    std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(daemon.stats().counters_sent.load(), 2);

  daemon.Stop();
  runner.join();
  server->Shutdown(std::chrono::system_clock::now() + milliseconds(200));
}

TEST_F(AgentHubTest, RejectedTokenIsRetriedWithBackoff) {
  FakeHub hub;
  int port = 0;
  auto server = StartHub(&hub, &port);
  ASSERT_TRUE(server);
  std::ofstream(pki_.dir / "token") << "wrong\n";
  FakeSource source;
  AgentDaemon daemon(Options(port), &source, &RealClock::Instance());
  std::thread runner([&] { (void)daemon.Run(); });
  // Several hellos, each refused; the agent never sends a report to a hub that refused it.
  ASSERT_TRUE(hub.WaitFor([](auto& log) { return Count(log, pb::AgentMessage::kHello) >= 3; },
                          milliseconds(10000)));
  daemon.Stop();
  runner.join();
  EXPECT_EQ(Count(hub.Log(), pb::AgentMessage::kReport), 0);
  server->Shutdown(std::chrono::system_clock::now() + milliseconds(200));
}

TEST_F(AgentHubTest, CertificateFromAnotherCaNeverConnects) {
  FakeHub hub;
  int port = 0;
  auto server = StartHub(&hub, &port);
  ASSERT_TRUE(server);
  const fs::path other = pki_.dir / "other";
  fs::create_directories(other);
  ASSERT_EQ(
      std::system(("cd " + other.string() +
                   " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
                   " -keyout ca.key -out ca.pem -days 1 -subj /CN=other-ca >/dev/null 2>&1")
                      .c_str()),
      0);
  DaemonOptions o = Options(port);
  o.ca_file = (other / "ca.pem").string();
  FakeSource source;
  AgentDaemon daemon(o, &source, &RealClock::Instance());
  std::thread runner([&] { (void)daemon.Run(); });
  // The handshake fails, so the hub never sees a message; the agent keeps retrying.
  EXPECT_FALSE(hub.WaitFor([](auto& log) { return !log.empty(); }, milliseconds(1500)));
  EXPECT_GE(daemon.stats().connects.load(), 2);
  daemon.Stop();
  runner.join();
  server->Shutdown(std::chrono::system_clock::now() + milliseconds(200));
}

TEST_F(AgentHubTest, GarbageCaFileIsAConfigurationError) {
  std::ofstream(pki_.dir / "bad.pem")
      << "-----BEGIN CERTIFICATE-----\nnot a cert\n-----END CERTIFICATE-----\n";
  DaemonOptions o = Options(1);
  o.ca_file = (pki_.dir / "bad.pem").string();
  FakeSource source;
  AgentDaemon daemon(o, &source, &RealClock::Instance());
  Status st = daemon.Run();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("bad.pem"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace rdmastack::agent
