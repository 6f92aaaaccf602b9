// The rolling library upgrade end to end: the seed pool moves from libcuobjserver 1.2.0.68
// (vgwrdma 1.8.0) to 2.0.0.109 (the 2.x-ported build) on simulated storage nodes that run the real
// launcher and versitygw behind each track, while a client keeps doing signed PUTs and GETs through
// whatever the EndpointSlices publish. A watcher samples what clients and the API server see:
// every node keeps a ready endpoint, never more than maxParallel nodes move at once.

#include <signal.h>

#include <random>

#include "base/utf8.h"
#include "servers/agenthub/hub_pki.h"
#include "tests/e2e/common/port_holder.h"
#include "tests/e2e/upgrade/upgrade_fixture.h"

namespace rdmastack::testing {
namespace {

// 1.2.0.68 -> 2.0.0.109 on 8 nodes, two at a time, under traffic; the operator is SIGKILLed at
// five random moments and, once, a standby takes over from a killed leader.
TEST_F(UpgradeE2eTest, MajorUpgradeUnderTrafficLosesNoRequestThroughOperatorKills) {
  StartPool("upgrade-traffic", 8,
            "    strategy: SideBySide\n    maxParallel: 2\n    validationTimeout: 2m\n"
            "    drainSeconds: 3\n    autoRollback: false\n");
  if (HasFatalFailure() || IsSkipped()) return;
  // Leader election from here on, so that a standby can take over.
  const std::vector<std::string> elect = {
      "--leader-elect", "--leader-election-namespace=" + ns_->name(),
      "--leader-election-lease-duration=6s", "--leader-election-renew-deadline=4s",
      "--leader-election-retry-period=1s"};
  operator_->Signal(SIGTERM);
  ASSERT_EQ(operator_->WaitExit(40s), 0) << operator_->Output();
  operator_ = LaunchOperator("upgrade-leader-0", elect);

  Traffic traffic(*env_, ns_->name(), "kvcache");
  InvariantWatcher watcher(*env_, ns_->name(), "kvcache",
                           {nodes_in_pool_.begin(), nodes_in_pool_.end()}, 2);
  const int64_t before = StartUpgradeUnderTraffic(traffic, watcher);

  std::mt19937 rng(std::random_device{}());
  std::string killed;
  for (int kill = 0; kill < 5; ++kill) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2000 + rng() % 6000));
    if (UpgradeDone()) break;
    operator_->Signal(SIGKILL);
    (void)operator_->WaitExit(10s);
    killed += "kill " + std::to_string(kill) + " at phases";
    for (const auto& n : nodes_in_pool_) killed += " " + Phase(n);
    killed += "\n";
    operator_ = LaunchOperator("upgrade-leader-" + std::to_string(kill + 1), elect);
  }
  // A standby waits; the leader dies; the standby takes over.
  std::unique_ptr<OperatorProcess> standby = LaunchOperator("upgrade-standby", elect);
  std::this_thread::sleep_for(3s);
  operator_->Signal(SIGKILL);
  (void)operator_->WaitExit(10s);
  operator_ = std::move(standby);

  EXPECT_TRUE(Eventually([&] { return UpgradeDone(); }, 300s)) << killed << Diagnostics();
  std::this_thread::sleep_for(2s);
  traffic.Stop();
  watcher.Stop();

  std::printf(
      "traffic: %lld requests (%lld before the upgrade), %zu failed; watcher: max %d in "
      "flight, %zu violations\n%s",
      static_cast<long long>(traffic.requests()), static_cast<long long>(before),
      traffic.failures().size(), watcher.max_in_flight(), watcher.violations().size(),
      killed.c_str());
  EXPECT_EQ(traffic.failures().size(), 0u) << Join(traffic.failures()) << killed;
  EXPECT_GT(traffic.requests(), before + 100) << "the traffic kept going through the upgrade";
  EXPECT_EQ(traffic.ports_used(), (std::set<int>{7071, 7072}));
  EXPECT_EQ(watcher.violations().size(), 0u) << Join(watcher.violations()) << killed;
  EXPECT_LE(watcher.max_in_flight(), 2);
  EXPECT_EQ(watcher.max_in_flight(), 2) << "two nodes moved at once at some point";
  // (Validate and Switch often last less than a sample: a pod found Ready and checked goes on.)
  for (const char* phase : {"StartNew", "Drain", "Done"})
    EXPECT_TRUE(watcher.phases_seen().count(phase)) << phase;
  // No node was moved twice: one start per node, whatever the kills interrupted.
  const auto moves = watcher.moves("v2");
  for (const std::string& node : nodes_in_pool_) {
    ASSERT_TRUE(moves.count(node)) << node;
    EXPECT_EQ(moves.at(node).size(), 1u) << node;
    EXPECT_EQ(NodeTracks(node), "v2") << node;
    EXPECT_EQ(Phase(node), "Done") << node;
  }
  ExpectObjectsReadBack(traffic);
  for (const SliceEndpoint& e : Endpoints("kvcache")) {
    EXPECT_EQ(e.port, 7072) << e.node;
    EXPECT_EQ(e.slice, "kvcache-gateway-v2-0") << e.node;
  }
  EXPECT_EQ(Endpoints("kvcache").size(), nodes_in_pool_.size());
  // Each step of each node was an Event on the pool.
  EXPECT_NE(Get({"get", "events", "-n", ns_->name(), "--field-selector", "reason=UpgradeSwitch",
                 "-o", "name"}),
            "");
}

// One node's new gateway can never start (its port is taken on that node): with autoRollback the
// rollout halts and the node moving beside it goes back; without it, the others finish and the
// failed node keeps serving 1.x.
TEST_F(UpgradeE2eTest, ANodeThatFailsValidationRollsBackAndKeepsServing) {
  StartPool("upgrade-rollback", 3,
            "    strategy: SideBySide\n    maxParallel: 2\n    validationTimeout: 25s\n"
            "    drainSeconds: 60\n    autoRollback: true\n");
  if (HasFatalFailure() || IsSkipped()) return;
  const std::string bad = nodes_in_pool_[0], beside = nodes_in_pool_[1], last = nodes_in_pool_[2];
  // Something else holds 7072 on the bad node, so the 2.x gateway cannot listen there.
  PortHolder port_7072(nodes_.at(bad).netns, 7072);
  std::this_thread::sleep_for(1s);

  Traffic traffic(*env_, ns_->name(), "kvcache");
  traffic.Start();
  Patch(kToV2);
  // The node beside it validates and drains (60 s); the bad one times out first.
  ASSERT_TRUE(Eventually([&] { return Phase(beside) == "Drain"; }, 90s)) << Diagnostics();
  ASSERT_TRUE(Eventually([&] { return Phase(bad) == "Failed"; }, 90s)) << Diagnostics();
  // The node's phase is its annotation; failingNodes is the pool's status, which a rollout writes
  // at most every 2 s (kUpgradeStatusInterval), so it may follow the annotation by that much.
  EXPECT_TRUE(
      Eventually([&] { return FailingReason("kvcache", bad) == "NewGatewayNotReady"; }, 20s))
      << FailingReason("kvcache", bad) << "\n"
      << Diagnostics();
  // Clients were on beside's new gateway: it drains (60 s) before it goes.
  ASSERT_TRUE(Eventually([&] { return Phase(beside) == ""; }, 150s))
      << "the halted rollout rolls back the node in flight\n"
      << Diagnostics();
  EXPECT_EQ(PoolCondition("kvcache", "Upgrading", "reason"), "RolloutHalted");
  EXPECT_EQ(PoolCondition("kvcache", "Degraded", "reason"), "UpgradeFailed");
  EXPECT_EQ(Phase(last), "") << "nothing new starts while halted";
  EXPECT_EQ(NodeTracks(beside), "v1");
  EXPECT_EQ(NodeTracks(bad), "v1");
  EXPECT_NE(Get({"get", "events", "-n", ns_->name(), "--field-selector",
                 "reason=UpgradeRollBack,type=Warning", "-o", "name"}),
            "");

  // Without autoRollback the others proceed; the failed node stays on 1.x and serves.
  Patch(R"({"spec":{"upgrade":{"autoRollback":false,"drainSeconds":2}}})");
  ASSERT_TRUE(Eventually([&] { return Phase(beside) == "Done" && Phase(last) == "Done"; }, 180s))
      << Diagnostics();
  EXPECT_EQ(Phase(bad), "Failed");
  EXPECT_EQ(PoolCondition("kvcache", "Upgrading", "reason"), "NodesFailed");
  traffic.Stop();
  EXPECT_EQ(traffic.failures().size(), 0u) << Join(traffic.failures());
  std::map<std::string, int> port_of;
  for (const SliceEndpoint& e : Endpoints("kvcache")) {
    if (e.ready) port_of[e.node] = e.port;
  }
  EXPECT_EQ(port_of[bad], 7071);
  EXPECT_EQ(port_of[beside], 7072);
  EXPECT_EQ(port_of[last], 7072);
  for (const SliceEndpoint& e : Endpoints("kvcache")) {
    if (e.ready) {
      EXPECT_TRUE(Serves(e)) << e.node << ":" << e.port;
    }
  }
}

// An InPlace rollout of a gateway build that never serves: it writes about 4 KiB of log and exits
// (registry.local/rdmastack/vgwrdma:1.8.0-cuobj1-longlog, tests/harness/node-runtime/
// standin_images.sh), so the pod's termination message (FallbackToLogsOnError: the log's last
// 2 KiB) is longer than the 1024 characters of a failingNodes message, and the node that fails
// validation is failing twice over: its upgrade failed, and its gateway crash-loops. The API server
// would refuse a status that quoted the whole tail or listed the node twice, every time, and the
// pool's status would stop at the conditions from before the rollout. Here the node is listed once
// with the log's last lines, the status keeps following the spec, and not one status write of the
// operator is refused (nor fitted by the writer: the computation fits on its own).
TEST_F(UpgradeE2eTest, AGatewayWithALongFailureLogLeavesAStatusTheServerTakes) {
  StartPool("upgrade-longlog", 2,
            "    strategy: InPlace\n    maxParallel: 1\n    maxUnavailable: 1\n"
            "    validationTimeout: 40s\n    drainSeconds: 2\n    autoRollback: false\n");
  if (HasFatalFailure() || IsSkipped()) return;
  const std::string failing = nodes_in_pool_[0];  // nodes start in name order
  const std::string good_image = PoolField("kvcache", "{.spec.gateway.image}");
  Patch(
      R"({"spec":{"gateway":{"image":"registry.local/rdmastack/vgwrdma:1.8.0-cuobj1-longlog"}}})");
  ASSERT_TRUE(Eventually([&] { return Phase(failing) == "Failed"; }, 180s)) << Diagnostics();

  // The node is listed once, with the end of its gateway's log clipped to fit.
  const std::string kLastLine =
      "vgwrdma stand-in: giving up after a long log, as a build that never serves";
  const std::string message_path = "{.status.failingNodes[?(@.node==\"" + failing + "\")].message}";
  ASSERT_TRUE(Eventually(
      [&] { return PoolField("kvcache", message_path).find(kLastLine) != std::string::npos; }, 60s))
      << PoolField("kvcache", "{.status}") << Diagnostics();
  const std::string message = PoolField("kvcache", message_path);
  std::printf("failingNodes[%s].message (%zu characters): %s\n", failing.c_str(),
              TextLength(message, TextUnit::kCodePoints), message.c_str());
  EXPECT_LE(TextLength(message, TextUnit::kCodePoints), 1024u);
  EXPECT_NE(message.find(" bytes cut)"), std::string::npos) << message;
  EXPECT_EQ(PoolField("kvcache", "{.status.failingNodes[*].node}"), failing)
      << PoolField("kvcache", "{.status.failingNodes}");
  EXPECT_EQ(Phase(nodes_in_pool_[1]), "") << "the failed node holds the only slot";

  // A spec edit: the status follows it.
  Patch(R"({"spec":{"gateway":{"image":")" + good_image + R"("}}})");
  const std::string generation = PoolField("kvcache", "{.metadata.generation}");
  EXPECT_TRUE(Eventually(
      [&] {
        return PoolField("kvcache", "{.status.observedGeneration}") == generation &&
               PoolCondition("kvcache", "Upgrading", "observedGeneration") == generation;
      },
      60s))
      << "generation " << generation << "\n"
      << PoolField("kvcache", "{.status}") << Diagnostics();

  // The API server's own record: every status write of the operator was taken. And none needed
  // the writer's fitting: what the controllers compute fits on its own.
  int status_writes = 0;
  for (const AuditedWrite& w : OperatorWrites()) {
    if (w.subresource != "status") continue;
    ++status_writes;
    EXPECT_LT(w.code, 400) << w.verb << " " << w.resource << "/" << w.subresource << " " << w.name
                           << " answered " << w.code;
  }
  EXPECT_GT(status_writes, 0) << Describe(OperatorWrites());
  EXPECT_EQ(operator_->Output().find("status does not fit the CRD schema"), std::string::npos)
      << operator_->Output();
}

// paused stops new starts without leaving a node half-way; unpausing resumes.
TEST_F(UpgradeE2eTest, PausedStopsNewStartsAndResumes) {
  StartPool("upgrade-paused", 3,
            "    strategy: SideBySide\n    maxParallel: 1\n    validationTimeout: 2m\n"
            "    drainSeconds: 4\n    autoRollback: true\n");
  if (HasFatalFailure() || IsSkipped()) return;
  Patch(kToV2);
  ASSERT_TRUE(Eventually([&] { return Phase(nodes_in_pool_[0]) == "Drain"; }, 90s))
      << Diagnostics();
  Patch(R"({"spec":{"upgrade":{"paused":true}}})");
  // The node under way finishes; the next does not start.
  ASSERT_TRUE(Eventually([&] { return Phase(nodes_in_pool_[0]) == "Done"; }, 60s)) << Diagnostics();
  ASSERT_TRUE(
      Eventually([&] { return PoolCondition("kvcache", "Upgrading", "reason") == "Paused"; }, 30s))
      << Diagnostics();
  std::this_thread::sleep_for(8s);
  EXPECT_EQ(Phase(nodes_in_pool_[1]), "");
  EXPECT_EQ(Phase(nodes_in_pool_[2]), "");
  EXPECT_EQ(PoolField("kvcache", "{.status.currentUpgrade.progress}"), "1/3");
  Patch(R"({"spec":{"upgrade":{"paused":false}}})");
  EXPECT_TRUE(Eventually([&] { return UpgradeDone(); }, 180s)) << Diagnostics();
}

// A patch-level change within the 2.x track (InPlace): pods are replaced one node at a time
// within maxUnavailable, each drained first.
TEST_F(UpgradeE2eTest, InPlaceUpdateReplacesPodsWithinMaxUnavailable) {
  StartPool("upgrade-inplace", 3,
            "    strategy: InPlace\n    maxParallel: 3\n    maxUnavailable: 1\n"
            "    validationTimeout: 2m\n    drainSeconds: 2\n    autoRollback: true\n");
  if (HasFatalFailure() || IsSkipped()) return;
  InvariantWatcher watcher(*env_, ns_->name(), "kvcache", {}, 1);
  watcher.Start();
  // The gateway's template changes (bufferCount): every pod is outdated.
  const std::string before = GatewayPodUids();
  Patch(R"({"spec":{"rdma":{"bufferPool":{"bufferCount":2}}}})");
  EXPECT_TRUE(Eventually(
      [&] {
        return PoolCondition("kvcache", "Upgrading", "reason") == "UpToDate" &&
               ReadyEndpointNodes("kvcache").size() == 3 &&
               GatewayPodUids().find(before.substr(0, 36)) == std::string::npos;
      },
      180s))
      << Diagnostics();
  watcher.Stop();
  EXPECT_EQ(watcher.max_in_flight(), 1);
  EXPECT_TRUE(watcher.phases_seen().count("Drain"));
  const std::string after = GatewayPodUids();
  for (size_t at = 0; at + 36 <= before.size(); at += 37)
    EXPECT_EQ(after.find(before.substr(at, 36)), std::string::npos) << "pod not replaced";
  for (const SliceEndpoint& e : Endpoints("kvcache")) EXPECT_TRUE(Serves(e)) << e.node;
}

// Node maintenance: `kubectl drain` of a storage node under traffic. The node's endpoint is listed
// as terminating for drainSeconds while its gateway still serves, then removed, and only then does
// the gateway stop; the pool stays Ready on the other nodes and lists the node under maintenance.
// Uncordoned, the node serves again from the same backend. Not one request fails.
TEST_F(UpgradeE2eTest, KubectlDrainTakesAStorageNodeOutGracefullyAndUncordonBringsItBack) {
  StartPool("maintenance", 3, "    drainSeconds: 5\n");
  if (HasFatalFailure() || IsSkipped()) return;
  const std::string node = nodes_in_pool_[1];
  // Whatever happens below, the node is schedulable again for the next test.
  struct Uncordon {
    const ClusterEnv& env;
    std::string node;
    ~Uncordon() { (void)env.Kubectl({"uncordon", node}); }
  } uncordon{*env_, node};
  auto endpoint = [&]() -> std::optional<SliceEndpoint> {
    for (const SliceEndpoint& e : Endpoints("kvcache")) {
      if (e.node == node) return e;
    }
    return std::nullopt;
  };
  auto gateway_pod = [&] {
    // "" when gone; the pod's name, and " terminating" once it is being deleted.
    return Get({"get", "pods", "-n", ns_->name(), "-l", "gatewaypool.rdmastack.io/name=kvcache",
                "--field-selector", "spec.nodeName=" + node, "-o",
                "jsonpath={range .items[*]}{.metadata.name}{.metadata.deletionTimestamp}{end}"});
  };
  auto maintenance_phase = [&] {
    return PoolField("kvcache", "{.status.maintenanceNodes[?(@.node==\"" + node + "\")].phase}");
  };
  const std::string pod_before = gateway_pod();
  ASSERT_NE(pod_before, "");

  Traffic traffic(*env_, ns_->name(), "kvcache");
  traffic.Start();
  std::this_thread::sleep_for(2s);
  const int64_t before = traffic.requests();
  CommandResult drained = env_->Kubectl(
      {"drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=90s"});
  ASSERT_EQ(drained.exit_code, 0) << drained.out << drained.err;

  // Draining: listed as terminating, still serving, the same gateway pod running.
  ASSERT_TRUE(Eventually(
      [&] {
        auto e = endpoint();
        return e && e->terminating && !e->ready && maintenance_phase() == "Draining";
      },
      30s))
      << Diagnostics();
  EXPECT_TRUE(endpoint()->serving);
  EXPECT_EQ(gateway_pod(), pod_before) << "the gateway serves through the drain";
  EXPECT_EQ(PoolCondition("kvcache", "Ready"), "True") << Diagnostics();
  EXPECT_EQ(PoolField("kvcache", "{.status.nodeCounts.maintenance}"), "1");
  EXPECT_EQ(PoolField("kvcache", "{.status.maintenanceNodes[0].cause}"), "cordoned");
  // What an operator sees (docs/operations.md "Node maintenance" shows this output).
  std::printf("%s%s\n", Get({"get", "gwp", "-n", ns_->name()}).c_str(),
              PoolField("kvcache", "{.status.maintenanceNodes}").c_str());

  // Then the endpoint goes, and only after it the gateway: never a listed endpoint whose pod is
  // being deleted.
  std::string order_violation;
  ASSERT_TRUE(Eventually(
      [&] {
        const std::string pod = gateway_pod();
        const bool listed = endpoint().has_value();
        if (listed && pod != pod_before && order_violation.empty())
          order_violation = "endpoint still listed while the gateway pod was '" + pod + "'";
        return !listed && pod.empty() && maintenance_phase() == "Stopped";
      },
      60s))
      << Diagnostics();
  EXPECT_EQ(order_violation, "");
  EXPECT_EQ(NodeTracks(node), "") << "the node's track label went with the drain";
  EXPECT_EQ(PoolCondition("kvcache", "Ready"), "True") << Diagnostics();
  EXPECT_EQ(PoolField("kvcache", "{.status.nodeCounts.readyOfSelected}"), "2/3");
  std::this_thread::sleep_for(2s);  // traffic on the two nodes left

  ASSERT_EQ(env_->Kubectl({"uncordon", node}).exit_code, 0);
  ASSERT_TRUE(Eventually(
      [&] {
        auto e = endpoint();
        return e && e->ready && maintenance_phase().empty() &&
               PoolField("kvcache", "{.status.nodeCounts.readyOfSelected}") == "3/3";
      },
      120s))
      << Diagnostics();
  EXPECT_EQ(Get({"get", "node", node, "-o",
                 "jsonpath={.metadata.annotations.maintenance\\.gwp\\.rdmastack\\.io/" +
                     ns_->name() + "\\.kvcache}"}),
            "");
  std::this_thread::sleep_for(3s);  // traffic through the node again
  StopAndExpectNoFailedRequest(traffic, "traffic", before, "the drain");
  // Objects written through the node before its maintenance read back from it after.
  ExpectObjectsReadBack(traffic);
  const std::string events = Get({"get", "events", "-n", ns_->name(), "-o",
                                  "jsonpath={range .items[*]}{.reason}: {.message}{\"\\n\"}{end}"});
  for (const char* step :
       {"MaintenanceDrain: node ", "MaintenanceStop: node ", "MaintenanceOver: node "})
    EXPECT_NE(events.find(step), std::string::npos) << step << " in:\n" << events;
}

// S3 over TLS: s3.tlsSecret turns a serving pool's gateways to HTTPS with the Secret's certificate
// (replaced in place, each node drained first; the operator's check and the readiness probe verify
// the certificate against ca.crt for the node's address), plain HTTP is no longer answered, and a
// certificate rotated in the Secret under traffic is served without one failed request.
TEST_F(UpgradeE2eTest, S3OverTlsServesHttpsAndARotatedCertificateLosesNoRequest) {
  StartPool("tls", 2, "    drainSeconds: 2\n    validationTimeout: 2m\n");
  if (HasFatalFailure() || IsSkipped()) return;
  std::vector<std::string> ips;
  for (const SliceEndpoint& e : Endpoints("kvcache")) ips.push_back(e.ip);
  ASSERT_EQ(ips.size(), 2u);
  // Two CAs: the Secret's ca.crt trusts both, so that the rotation can move to the second.
  const auto now = std::chrono::system_clock::now();
  auto ca1 = agenthub::MakeCertificateAuthority("rdmastack e2e CA 1", now, 24h);
  auto ca2 = agenthub::MakeCertificateAuthority("rdmastack e2e CA 2", now, 24h);
  ASSERT_TRUE(ca1.ok() && ca2.ok());
  auto leaf1 = agenthub::IssueServingCertificate(*ca1, ips, now, 24h);
  auto leaf2 = agenthub::IssueServingCertificate(*ca2, ips, now, 24h);
  ASSERT_TRUE(leaf1.ok() && leaf2.ok());
  const std::string bundle = ca1->cert_pem + ca2->cert_pem;
  ApplyTlsSecret("kvcache-tls", leaf1->cert_pem, leaf1->key_pem, bundle);
  if (HasFatalFailure()) return;
  Patch(R"({"spec":{"s3":{"tlsSecret":{"name":"kvcache-tls"}}}})");

  UseTls(bundle);
  ASSERT_TRUE(Eventually(
      [&] {
        if (PoolCondition("kvcache", "Upgrading", "reason") != "UpToDate") return false;
        const std::vector<SliceEndpoint> eps = Endpoints("kvcache");
        size_t https = 0;
        for (const SliceEndpoint& e : eps) https += e.ready && Serves(e);
        return https == 2;
      },
      180s))
      << Diagnostics();
  // Plain HTTP is not served any more.
  for (const SliceEndpoint& e : Endpoints("kvcache")) {
    auto plain =
        s3::S3Client(transport_, s3::Endpoint{"http", e.ip, static_cast<uint16_t>(e.port)},
                     {kSeedAccessKey, kSeedSecretKey}, "us-east-1", RealClock::Instance(), 5s)
            .Send({.method = "GET", .path = "/"});
    EXPECT_FALSE(plain.ok() && plain->status == 200) << e.node << " still answers plain HTTP";
  }
  // A client that trusts only the second CA is refused until the rotation.
  s3::BeastHttpTransport ca2_only(s3::TlsOptions{.ca_pem = ca2->cert_pem});
  auto served_by_leaf2 = [&](const SliceEndpoint& e) {
    auto r = s3::S3Client(ca2_only, s3::Endpoint{"https", e.ip, static_cast<uint16_t>(e.port)},
                          {kSeedAccessKey, kSeedSecretKey}, "us-east-1", RealClock::Instance(), 5s)
                 .Send({.method = "GET", .path = "/"});
    return r.ok() && r->status == 200;
  };
  for (const SliceEndpoint& e : Endpoints("kvcache")) EXPECT_FALSE(served_by_leaf2(e)) << e.node;

  Traffic traffic(*env_, ns_->name(), "kvcache");
  traffic.UseTls(bundle);
  traffic.Start();
  std::this_thread::sleep_for(3s);
  const int64_t before = traffic.requests();
  ApplyTlsSecret("kvcache-tls", leaf2->cert_pem, leaf2->key_pem, bundle);
  if (HasFatalFailure()) return;
  // The kubelet updates the Secret volume, the launcher notices and versitygw reloads.
  EXPECT_TRUE(Eventually(
      [&] {
        size_t rotated_nodes = 0;
        for (const SliceEndpoint& e : Endpoints("kvcache")) rotated_nodes += served_by_leaf2(e);
        return rotated_nodes == 2;
      },
      90s))
      << Diagnostics();
  std::this_thread::sleep_for(3s);
  StopAndExpectNoFailedRequest(traffic, "traffic over HTTPS", before, "the rotation");
  ExpectObjectsReadBack(traffic);
  EXPECT_EQ(PoolCondition("kvcache", "Ready"), "True") << Diagnostics();
}

}  // namespace
}  // namespace rdmastack::testing
