// rdmastack-operator processes against the real API server: exactly one of two leads; a killed
// leader is replaced within leaseDuration + retryPeriod (measured and printed); a stopped leader
// (SIGSTOP) writes nothing after the takeover — checked in the API server's audit log — and exits
// non-zero when it resumes; a leader whose API server hangs stops writing within the renew
// deadline and exits; SIGTERM releases the lease so the standby takes over at once.
//
// Timings are shortened (lease 6 s, renew deadline 4 s, retry 1 s) to keep the suite short; the
// logic does not depend on the values.

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "operator/k8s/client.h"
#include "operator/k8s/config.h"
#include "tests/harness/audit_log.h"
#include "tests/harness/cluster_env.h"
#include "tests/integration/operator/operator_process.h"
#include "tests/integration/operator/tcp_proxy.h"

namespace rdmastack::testing {
namespace {

using namespace std::chrono_literals;
using std::chrono::duration_cast;
using std::chrono::milliseconds;

constexpr auto kLease = 6s;
constexpr auto kRenewDeadline = 4s;
constexpr auto kRetry = 1s;
// Process start, scheduling on a loaded 2-core machine.
constexpr auto kSlack = 1500ms;

class OperatorLeadershipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RDMASTACK_REQUIRE_CLUSTER(env);
    env_ = env;
    ns_ = UniqueName("leader");
    ASSERT_EQ(env_->Kubectl({"create", "namespace", ns_}).exit_code, 0);
    auto config = k8s::LoadKubeconfig(env_->kubeconfig);
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    config_ = *config;
    auto client = k8s::NewRestClient(config_);
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(*client);
  }
  void TearDown() override {
    if (env_ != nullptr) env_->Kubectl({"delete", "namespace", ns_, "--wait=false"});
  }

  std::vector<std::string> Args(const std::string& kubeconfig) const {
    std::vector<std::string> args = {"--kubeconfig",
                                     kubeconfig,
                                     "--leader-elect",
                                     "--leader-election-namespace=" + ns_,
                                     "--leader-election-id=rdmastack-test",
                                     "--leader-election-lease-duration=6s",
                                     "--leader-election-renew-deadline=4s",
                                     "--leader-election-retry-period=1s",
                                     "--metrics-bind-address=0",
                                     "--health-probe-bind-address=0"};
    for (auto& flag : AgentHubTestFlags(ns_)) args.push_back(std::move(flag));
    return args;
  }

  std::string Holder() const {
    auto lease = client_->Get(k8s::kinds::Lease(), ns_, "rdmastack-test");
    return lease.ok() ? lease->GetString({"spec", "holderIdentity"}).value_or("") : "";
  }

  // Polls the Lease every 50 ms until `want` holds it; the time that took, or nullopt.
  std::optional<milliseconds> WaitHolder(const std::string& want, milliseconds timeout) const {
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < timeout) {
      if (Holder() == want)
        return duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
      std::this_thread::sleep_for(50ms);
    }
    return std::nullopt;
  }

  // Starts `first`, waits until it leads, then a standby that has reached the lease.
  void StartLeaderAndStandby(std::unique_ptr<OperatorProcess>& leader, std::string& leader_id,
                             std::unique_ptr<OperatorProcess>& standby, std::string& standby_id,
                             const std::string& leader_kubeconfig) {
    leader = std::make_unique<OperatorProcess>("leader", Args(leader_kubeconfig));
    leader_id = leader->Identity();
    ASSERT_FALSE(leader_id.empty()) << leader->Output();
    ASSERT_TRUE(WaitHolder(leader_id, 30s)) << leader->Output();
    standby = std::make_unique<OperatorProcess>("standby", Args(env_->kubeconfig));
    standby_id = standby->Identity();
    ASSERT_FALSE(standby_id.empty()) << standby->Output();
    ASSERT_TRUE(standby->WaitForOutput("waiting for lease", 30s)) << standby->Output();
  }

  // The server time of the first successful lease write by `identity` at or after `after`.
  static std::optional<std::chrono::system_clock::time_point> FirstLeaseWrite(
      const std::string& identity, std::chrono::system_clock::time_point after) {
    for (const auto& w : WritesByAgent(ReadAuditedWrites(), identity)) {
      if (w.resource == "leases" && w.code / 100 == 2 && w.received >= after) return w.received;
    }
    return std::nullopt;
  }

  const ClusterEnv* env_ = nullptr;
  std::string ns_;
  k8s::Config config_;
  k8s::ClientPtr client_;
};

TEST_F(OperatorLeadershipTest, ExactlyOneLeadsAndAKilledLeaderIsReplacedWithinTheLease) {
  OperatorProcess a("a", Args(env_->kubeconfig)), b("b", Args(env_->kubeconfig));
  const std::string id_a = a.Identity(), id_b = b.Identity();
  ASSERT_FALSE(id_a.empty()) << a.Output();
  ASSERT_FALSE(id_b.empty()) << b.Output();
  ASSERT_TRUE(Eventually([&] { return Holder() == id_a || Holder() == id_b; }, 30s));
  std::this_thread::sleep_for(3s);  // several renewals: the holder does not change hands
  const std::string leader_id = Holder();
  ASSERT_TRUE(leader_id == id_a || leader_id == id_b);
  OperatorProcess& leader = leader_id == id_a ? a : b;
  OperatorProcess& standby = leader_id == id_a ? b : a;
  const std::string standby_id = leader_id == id_a ? id_b : id_a;
  // The standby has changed nothing: no lease write and no event went through. (Both may have
  // raced to create the Lease at start; the loser's create was refused with 409.)
  for (const auto& w : WritesByAgent(ReadAuditedWrites(), standby_id)) {
    EXPECT_FALSE(w.code / 100 == 2) << "standby wrote " << w.verb << " " << w.resource << "/"
                                    << w.name << " (" << w.code << ")";
  }
  int leader_lease_writes = 0, leader_events = 0;
  auto count_leader_writes = [&] {
    leader_lease_writes = leader_events = 0;
    for (const auto& w : WritesByAgent(ReadAuditedWrites(), leader_id)) {
      leader_lease_writes += w.resource == "leases";
      leader_events += w.resource == "events";
    }
    return leader_lease_writes >= 3 && leader_events >= 1;
  };
  // Acquire + renewals every second, and one "<identity> became leader" event.
  EXPECT_TRUE(Eventually(count_leader_writes, 10s))
      << leader_lease_writes << " lease writes, " << leader_events << " events";
  EXPECT_EQ(leader_events, 1);
  EXPECT_TRUE(leader.WaitForOutput("started", 5s)) << leader.Output();

  leader.Signal(SIGKILL);
  const auto took = WaitHolder(standby_id, 30s);
  ASSERT_TRUE(took.has_value()) << standby.Output();
  std::printf(
      "takeover after SIGKILL of the leader: %lld ms (leaseDuration 6000 + retryPeriod 1000)\n",
      static_cast<long long>(took->count()));
  // The standby last saw the lease change up to one retry period after the leader's last renewal,
  // and looks again every retry period.
  EXPECT_LE(*took, kLease + 2 * kRetry + kSlack);
  EXPECT_GE(*took, kLease - 2 * kRetry);  // and not before the lease could have expired
}

TEST_F(OperatorLeadershipTest, AStoppedLeaderWritesNothingAfterTheTakeoverAndExitsNonZero) {
  std::unique_ptr<OperatorProcess> a, b;
  std::string id_a, id_b;
  StartLeaderAndStandby(a, id_a, b, id_b, env_->kubeconfig);
  if (HasFatalFailure()) return;

  const auto stopped_at = std::chrono::system_clock::now();
  a->Signal(SIGSTOP);
  ASSERT_TRUE(WaitHolder(id_b, 30s)) << b->Output();
  const auto takeover = FirstLeaseWrite(id_b, stopped_at);
  ASSERT_TRUE(takeover.has_value());
  std::this_thread::sleep_for(1s);
  a->Signal(SIGCONT);
  const auto code = a->WaitExit(15s);
  ASSERT_TRUE(code.has_value()) << "the resumed ex-leader is still running:\n" << a->Output();
  EXPECT_NE(*code, 0) << a->Output();
  EXPECT_NE(a->Output().find("leader election lost"), std::string::npos) << a->Output();

  int after = 0;
  for (const auto& w : WritesByAgent(ReadAuditedWrites(), id_a)) {
    if (w.received >= *takeover) {
      ++after;
      ADD_FAILURE() << "write by the stopped leader after the takeover: " << w.verb << " "
                    << w.resource << "/" << w.name << " (" << w.code << ")";
    }
  }
  std::printf("writes by the SIGSTOPped leader after the takeover: %d\n", after);
  EXPECT_EQ(Holder(), id_b);
}

TEST_F(OperatorLeadershipTest, AHangingApiServerStopsTheLeaderWithinTheRenewDeadline) {
  // libstdc++'s <regex> trips -Wmaybe-uninitialized under the sanitizer build, so plain string
  // handling: the server is "https://127.0.0.1:<port>".
  const auto colon = config_.server.rfind(':');
  ASSERT_NE(colon, std::string::npos) << config_.server;
  TcpProxy proxy(static_cast<uint16_t>(std::stoi(config_.server.substr(colon + 1))));
  const std::string proxied = ::testing::TempDir() + ns_ + "-proxied.kubeconfig";
  {
    std::ifstream in(env_->kubeconfig);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string proxied_server = "https://127.0.0.1:" + std::to_string(proxy.port());
    for (auto at = text.find(config_.server); at != std::string::npos;
         at = text.find(config_.server, at + proxied_server.size())) {
      text.replace(at, config_.server.size(), proxied_server);
    }
    ASSERT_NE(text.find(proxied_server), std::string::npos) << "no server line in the kubeconfig";
    std::ofstream(proxied) << text;
  }
  std::unique_ptr<OperatorProcess> a, b;
  std::string id_a, id_b;
  StartLeaderAndStandby(a, id_a, b, id_b, proxied);
  if (HasFatalFailure()) return;

  const auto frozen_at = std::chrono::system_clock::now();
  const auto frozen_steady = std::chrono::steady_clock::now();
  proxy.Freeze();
  const auto code = a->WaitExit(kRenewDeadline + 5s);
  ASSERT_TRUE(code.has_value()) << "the leader behind a hanging API server is still running:\n"
                                << a->Output();
  const auto exited_after =
      duration_cast<milliseconds>(std::chrono::steady_clock::now() - frozen_steady);
  std::printf(
      "leader behind a hanging API server exited %lld ms after the hang (renew deadline 4000)\n",
      static_cast<long long>(exited_after.count()));
  EXPECT_NE(*code, 0);
  EXPECT_LE(exited_after, kRenewDeadline + kSlack);
  for (const auto& w : WritesByAgent(ReadAuditedWrites(), id_a)) {
    EXPECT_LT(w.received, frozen_at + kRenewDeadline) << w.verb << " " << w.resource;
  }
  const auto took = WaitHolder(id_b, 30s);
  ASSERT_TRUE(took.has_value()) << b->Output();
  std::printf("standby took over %lld ms after the leader exited\n",
              static_cast<long long>(took->count()));
}

TEST_F(OperatorLeadershipTest, SigtermReleasesTheLeaseAndTheStandbyTakesOverAtOnce) {
  std::unique_ptr<OperatorProcess> a, b;
  std::string id_a, id_b;
  StartLeaderAndStandby(a, id_a, b, id_b, env_->kubeconfig);
  if (HasFatalFailure()) return;

  const auto t0 = std::chrono::steady_clock::now();
  a->Signal(SIGTERM);
  const auto code = a->WaitExit(30s);
  ASSERT_TRUE(code.has_value()) << a->Output();
  EXPECT_EQ(*code, 0) << a->Output();
  const auto took = WaitHolder(id_b, 30s);
  ASSERT_TRUE(took.has_value()) << b->Output();
  const auto since_sigterm = duration_cast<milliseconds>(std::chrono::steady_clock::now() - t0);
  std::printf("takeover after SIGTERM of the leader: %lld ms (leaseDuration 6000)\n",
              static_cast<long long>(since_sigterm.count()));
  // Released, not expired: the standby's next retry takes it.
  EXPECT_LT(since_sigterm, kLease);
}

}  // namespace
}  // namespace rdmastack::testing
