// The rolling upgrade through faults of what it depends on: the API server restarted twice while
// nodes move, etcd frozen for 30 s, and the agent hub's port blocked for 60 s (every agent stops
// Reporting); and a storage node cut off the network mid-move. A client keeps doing signed PUTs
// and GETs, without retries, through the EndpointSlices the whole time; the upgrade must finish
// with no failed request (but those sent to the cut-off node before its endpoints left), no other
// node without a ready endpoint, no node moved twice, and every object readable.

#include <functional>
#include <set>
#include <sstream>
#include <utility>

#include "tests/e2e/upgrade/upgrade_fixture.h"
#include "tests/harness/scope_exit.h"

namespace rdmastack::testing {
namespace {

// The operator's warning and error lines (its log: "<time> W ..." / "<time> E ...").
std::string WarningsOf(const std::string& output) {
  std::istringstream in(output);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    const size_t space = line.find(' ');
    if (space != std::string::npos && line.size() > space + 2 &&
        (line[space + 1] == 'W' || line[space + 1] == 'E') && line[space + 2] == ' ')
      out += line + "\n";
  }
  return out;
}

TEST_F(UpgradeE2eTest, AnUpgradeRidesOutApiServerRestartsAnEtcdFreezeAndAHubOutage) {
  // Agents silent for 20 s are Stale, so the hub outage shows; the hub's keepalive (60 s + 20 s)
  // would only end the streams after the outage.
  extra_operator_args_ = {"--agent-stale-ttl=20s"};
  StartPool("upgrade-faults", 4,
            "    strategy: SideBySide\n    maxParallel: 1\n    validationTimeout: 3m\n"
            "    drainSeconds: 20\n    autoRollback: false\n");
  constexpr auto kDrain = std::chrono::seconds(20);
  if (HasFatalFailure() || IsSkipped()) return;
  auto cluster = [&](const std::vector<std::string>& args) { ClusterScript(args); };
  auto moving = [&](const std::string& node) { return !Phase(node).empty(); };

  Traffic traffic(*env_, ns_->name(), "kvcache");
  InvariantWatcher watcher(*env_, ns_->name(), "kvcache",
                           {nodes_in_pool_.begin(), nodes_in_pool_.end()}, 1);
  const int64_t before = StartUpgradeUnderTraffic(traffic, watcher);
  std::string log;
  // This test's client polls the EndpointSlices with kubectl (250 ms apart, each call a process
  // that takes seconds on a loaded machine); a client that watches sees a switch within
  // milliseconds. A fault begins once the client has caught up with the slices: a poll that missed
  // the switch before the API went away would still send to the old gateway once the drain ends
  // (docs/operations.md, "Upgrades and API outages").
  auto client_caught_up = [&] {
    auto ready = [](const std::vector<SliceEndpoint>& eps) {
      std::set<std::string> out;
      for (const SliceEndpoint& e : eps) {
        if (e.ready) out.insert(e.node + " " + e.ip + ":" + std::to_string(e.port));
      }
      return out;
    };
    return ready(traffic.endpoints()) == ready(ReadEndpoints(*env_, ns_->name(), "kvcache"));
  };

  // The API server goes away twice, each time while a node is in the middle of its move.
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(Eventually([&] { return moving(nodes_in_pool_[i]); }, 180s)) << Diagnostics();
    EXPECT_TRUE(Eventually(client_caught_up, 30s)) << "the client's endpoints";
    log +=
        "API server restart with " + nodes_in_pool_[i] + " in " + Phase(nodes_in_pool_[i]) + "\n";
    cluster({"restart", "kube-apiserver"});
  }

  // etcd frozen for 30 s while the third node drains: every API call hangs or fails meanwhile.
  // The drain runs out by the clock during the freeze, but clients cannot read the endpoints
  // then: it lasts drainSeconds from the API server's first answer after the thaw. (The operator
  // sees the freeze once a storage request has hung for 5 s; this operator holds no lease, so its
  // probe, a read of the Lease every 2 s, is one. The drain must have more than that left when
  // the freeze begins: hence 20 s.)
  const std::string frozen = nodes_in_pool_[2];
  ASSERT_TRUE(Eventually([&] { return Phase(frozen) == "Drain"; }, 180s)) << Diagnostics();
  EXPECT_TRUE(Eventually(client_caught_up, 30s)) << "the client's endpoints";
  ASSERT_EQ(Phase(frozen), "Drain") << "the client took the whole drain to catch up";
  log += "etcd frozen with " + frozen + " in Drain\n";
  const size_t logged_before_freeze = operator_->Output().size();
  cluster({"pause", "etcd"});
  ScopeExit thaw([&] { cluster({"resume", "etcd"}); });
  std::this_thread::sleep_for(30s);
  // Before the resume: the operator's first answer after the freeze comes later still.
  const auto thawed = std::chrono::steady_clock::now();
  thaw.Now();
  ASSERT_TRUE(Eventually([&] { return Phase(frozen) != "Drain"; }, 120s)) << Diagnostics();
  const auto drained_after = std::chrono::steady_clock::now() - thawed;
  log +=
      frozen + " left Drain " +
      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(drained_after).count()) +
      " ms after the thaw\n";
  EXPECT_GE(drained_after, kDrain) << log << "operator warnings and errors:\n"
                                   << WarningsOf(operator_->Output());
  // How the operator saw the freeze: an outage that ended after the pause began. It ends either
  // by a storage request that hung through the freeze ("(a request waited that long)") or, when
  // a request failed during the freeze first, by the first answer after the thaw; both count
  // the drain from then, which kDrain above already holds the operator to.
  const std::string output = operator_->Output();
  const size_t seen = output.find("API server answering again after ", logged_before_freeze);
  EXPECT_NE(seen, std::string::npos)
      << "the operator did not log an outage ending after the freeze began";
  if (seen != std::string::npos) {
    const size_t begin = output.rfind('\n', seen) + 1;
    log += output.substr(begin, output.find('\n', seen) - begin) + "\n";
  }

  // The hub's port blocked for 60 s: agents cannot reach it (their packets are dropped), stop
  // Reporting, and come back; no gateway is stopped for an agent's silence (the watcher sees every
  // node keep a ready endpoint).
  const std::string hub_rule =
      "-p tcp -d " + bridge_ + " --dport " + std::to_string(hub_port_) + " -j DROP";
  auto iptables = [&](const std::string& op) {
    std::vector<std::string> args = {"iptables", "-w", op, "INPUT"};
    std::istringstream words(hub_rule);
    for (std::string w; words >> w;) args.push_back(w);
    CommandResult r = RunCommand(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  };
  ASSERT_TRUE(Eventually([&] { return moving(nodes_in_pool_[3]); }, 180s)) << Diagnostics();
  log += "hub blocked with " + nodes_in_pool_[3] + " in " + Phase(nodes_in_pool_[3]) + "\n";
  iptables("-I");
  ScopeExit unblock([&] { iptables("-D"); });
  const auto blocked_at = std::chrono::steady_clock::now();
  auto reporting = [&](const std::string& node, const char* field) {
    return Get(
        {"get", "rdmanode", node, "--ignore-not-found", "-o",
         "jsonpath={.status.conditions[?(@.type==\"Reporting\")]." + std::string(field) + "}"});
  };
  EXPECT_TRUE(Eventually([&] { return reporting(nodes_in_pool_[0], "status") == "False"; }, 55s))
      << "an agent cut off from the hub stops Reporting\n"
      << Get({"get", "rdmanode", nodes_in_pool_[0], "-o", "yaml"});
  log += "cut-off agent: Reporting " + reporting(nodes_in_pool_[0], "reason") + " (" +
         reporting(nodes_in_pool_[0], "message") + ")\n";
  std::this_thread::sleep_until(blocked_at + 60s);
  log += "hub unblocked with phases";
  for (const auto& n : nodes_in_pool_) log += " " + Phase(n);
  log += "\n";
  unblock.Now();
  for (const std::string& node : nodes_in_pool_) {
    EXPECT_TRUE(Eventually([&] { return reporting(node, "status") == "True"; }, 120s))
        << node << " reports again\n"
        << Get({"get", "rdmanode", node, "-o", "yaml"});
  }

  EXPECT_TRUE(Eventually([&] { return UpgradeDone(); }, 300s)) << log << Diagnostics();
  std::this_thread::sleep_for(2s);
  traffic.Stop();
  watcher.Stop();
  std::printf(
      "traffic: %lld requests (%lld before the upgrade), %zu failed; watcher: max %d in flight, "
      "%zu violations\n%s",
      static_cast<long long>(traffic.requests()), static_cast<long long>(before),
      traffic.failures().size(), watcher.max_in_flight(), watcher.violations().size(), log.c_str());
  EXPECT_EQ(traffic.failures().size(), 0u) << Join(traffic.failures()) << log;
  EXPECT_GT(traffic.requests(), before + 100) << "the traffic kept going through the faults";
  EXPECT_EQ(watcher.violations().size(), 0u)
      << Join(watcher.violations()) << log << "operator warnings and errors:\n"
      << WarningsOf(operator_->Output());
  EXPECT_LE(watcher.max_in_flight(), 1);
  const auto moves = watcher.moves("v2");
  for (const std::string& node : nodes_in_pool_) {
    ASSERT_TRUE(moves.count(node)) << node;
    EXPECT_EQ(moves.at(node).size(), 1u) << node << " moved more than once";
    EXPECT_EQ(NodeTracks(node), "v2") << node;
    EXPECT_EQ(Phase(node), "Done") << node;
  }
  ExpectObjectsReadBack(traffic);
  for (const SliceEndpoint& e : Endpoints("kvcache")) EXPECT_EQ(e.port, 7072) << e.node;
}

// A storage node cut off the network while its endpoint moves (Switch, or Drain when Switch was
// too short to catch): nothing reaches it, its heartbeats stop, its kubelet (the node runtime)
// neither probes nor writes (cluster.sh partition). The node controller marks it NotReady and its
// pods not Ready; the pool then takes its endpoints out of the slices, so the only failed requests
// are those sent to that node before that, and no other node starts moving while it holds the
// one slot (maxParallel 1). Once it is connected again the upgrade finishes, each node moved
// once, and every object written through any node reads back.
TEST_F(UpgradeE2eTest, ANodeCutOffMidMoveLeavesTheEndpointsAndTheUpgradeFinishesOnceItIsBack) {
  StartPool("upgrade-cut", 4,
            "    strategy: SideBySide\n    maxParallel: 1\n    validationTimeout: 3m\n"
            "    drainSeconds: 20\n    autoRollback: true\n");
  if (HasFatalFailure() || IsSkipped()) return;
  auto cluster = [&](const std::string& cmd, const std::string& node) {
    ClusterScript({cmd, node});
  };
  const std::string cut = nodes_in_pool_[1];
  const std::string cut_ip =
      Get({"get", "node", cut, "-o",
           "jsonpath={.status.addresses[?(@.type==\"InternalIP\")].address}"});
  ASSERT_FALSE(cut_ip.empty());

  Traffic traffic(*env_, ns_->name(), "kvcache");
  InvariantWatcher watcher(*env_, ns_->name(), "kvcache",
                           {nodes_in_pool_.begin(), nodes_in_pool_.end()}, 1);
  StartUpgradeUnderTraffic(traffic, watcher);

  std::string phase;
  ASSERT_TRUE(Eventually(
      [&] {
        phase = Phase(cut);
        return phase == "Switch" || phase == "Drain";
      },
      240s))
      << Diagnostics();
  cluster("partition", cut);
  ScopeExit heal([&] { cluster("heal", cut); });
  const auto cut_at = std::chrono::steady_clock::now();
  std::string log = "cut off " + cut + " (" + cut_ip + ") in " + phase + "\n";

  // Its endpoints leave once the node controller has marked it (grace period 50 s) and the pool
  // saw its pods not Ready.
  auto published = [&] { return ReadyEndpointNodes("kvcache").count(cut) != 0; };
  ASSERT_TRUE(Eventually([&] { return !published(); }, 120s)) << log << Diagnostics();
  const double left_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - cut_at).count();
  log += "its endpoints left after " + std::to_string(static_cast<int>(left_s)) + " s\n";
  const size_t failed_until_left = traffic.failures().size();

  // Cut off for 90 s in all: the move waits for it; no other node starts.
  std::this_thread::sleep_until(cut_at + 90s);
  log += "while cut off: Upgrading " + PoolCondition("kvcache", "Upgrading", "reason") + " (" +
         PoolCondition("kvcache", "Upgrading", "message") + "); phases";
  for (const auto& n : nodes_in_pool_) log += " " + n + "=" + Phase(n);
  log += "\n";
  for (size_t i = 2; i < nodes_in_pool_.size(); ++i)
    EXPECT_EQ(Phase(nodes_in_pool_[i]), "")
        << nodes_in_pool_[i] << " started while " << cut << " held the only slot\n"
        << log;
  EXPECT_FALSE(published()) << "a cut-off node's endpoint came back\n" << log;
  const size_t failed_while_cut = traffic.failures().size();
  heal.Now();

  EXPECT_TRUE(Eventually([&] { return UpgradeDone(); }, 360s)) << log << Diagnostics();
  std::this_thread::sleep_for(2s);
  traffic.Stop();
  watcher.Stop();
  size_t elsewhere = 0;
  for (const std::string& f : traffic.failures())
    elsewhere += f.find(" via " + cut_ip + ":") == std::string::npos;
  std::printf(
      "traffic: %lld requests, %zu failed (%zu before the endpoints left, %zu while cut off), "
      "%zu through another node\n%s",
      static_cast<long long>(traffic.requests()), traffic.failures().size(), failed_until_left,
      failed_while_cut, elsewhere, log.c_str());
  EXPECT_EQ(elsewhere, 0u) << Join(traffic.failures()) << log;
  EXPECT_EQ(traffic.failures().size(), failed_while_cut) << "failures after the node came back\n"
                                                         << Join(traffic.failures()) << log;
  EXPECT_LE(failed_while_cut, failed_until_left + 4) << "requests failed after the endpoints left\n"
                                                     << Join(traffic.failures()) << log;
  // The cut-off node is without a ready endpoint while it is away, as it must be; every other
  // node always had one, and never were two nodes in flight.
  std::vector<std::string> violations;
  size_t cut_without_endpoint = 0;
  for (const std::string& v : watcher.violations()) {
    if (v == "no ready endpoint for " + cut) {
      ++cut_without_endpoint;
    } else {
      violations.push_back(v);
    }
  }
  EXPECT_EQ(violations.size(), 0u) << Join(violations) << log;
  EXPECT_GT(cut_without_endpoint, 0u) << "the watcher never saw the cut-off node's endpoint go";
  const auto moves = watcher.moves("v2");
  for (const std::string& node : nodes_in_pool_) {
    ASSERT_TRUE(moves.count(node)) << node;
    EXPECT_EQ(moves.at(node).size(), 1u) << node << " moved more than once";
    EXPECT_EQ(NodeTracks(node), "v2") << node;
  }
  ExpectObjectsReadBack(traffic);
}

}  // namespace
}  // namespace rdmastack::testing
