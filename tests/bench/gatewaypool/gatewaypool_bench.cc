// One GatewayPool over N kwok nodes (plain kwok pods, made Running and Ready by kwok's stages):
// the API writes of the real rdmastack-operator from `kubectl apply` to Ready, counted from the
// API server's audit log, and the operator's share of that time: from the apply to its last node
// label / DaemonSet write (pods cannot be scheduled before), plus from the last gateway pod turning
// Ready (kwok's write) to the pool's Ready status write. RDMASTACK_GWP_BENCH_NODES sets N
// (default 1000). The nodes carry what the agents would have reported (an RdmaNode each, written
// by the bench), and the operator runs with a long agent TTL so that it does not mark them Stale.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "controllers/common/parallel.h"
#include "crds/types/kinds.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/client.h"
#include "operator/k8s/config.h"
#include "tests/bench/scale/kwok_nodes.h"
#include "tests/harness/audit_log.h"
#include "tests/harness/cluster_env.h"
#include "tests/harness/cluster_test.h"
#include "tests/harness/proc_stat.h"
#include "tests/integration/operator/operator_process.h"

namespace rdmastack::testing {
namespace {

using std::chrono::seconds;
using WallClock = std::chrono::system_clock;

int NodeCount() {
  const char* n = std::getenv("RDMASTACK_GWP_BENCH_NODES");
  return n != nullptr ? std::atoi(n) : 1000;
}

double Seconds(WallClock::duration d) {
  return std::chrono::duration<double>(d).count();
}

class GatewayPoolBench : public ClusterWithCrdsTest {
 protected:
  void SetUp() override {
    ClusterWithCrdsTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ns_ = "gwp-bench-" + std::to_string(::getpid());
    k8s::JsonObject ns;
    ns.SetApiVersion("v1");
    ns.SetKind("Namespace");
    ns.SetName(ns_);
    ASSERT_TRUE(admin_->Create(k8s::kinds::Namespace(), ns).ok());
  }

  void TearDown() override {
    if (!admin_) return;
    // The pool goes first, while the operator runs (its finalizer) and kwok still manages the
    // nodes (so that the gateway pods end); then the nodes.
    if (operator_ != nullptr) {
      env_->Kubectl({"delete", "gwp", "--all", "-n", ns_, "--timeout=120s"});
      Eventually(
          [&] {
            auto pods = admin_->List(k8s::kinds::Pod(), ns_);
            return pods.ok() && pods->items.empty();
          },
          seconds(180));
    }
    operator_.reset();
    controllers::ParallelFor(nodes_, 8, [&](size_t i) {
      (void)admin_->Delete(crd::kinds::RdmaNode(), "", NodeName(i));
      (void)admin_->Delete(k8s::kinds::Node(), "", NodeName(i));
    });
    (void)admin_->Delete(k8s::kinds::Namespace(), "", ns_);
  }

  std::string NodeName(int i) const { return ns_ + "-n" + std::to_string(i); }

  // A kwok node that is gateway-capable, with the RdmaNode its agent would have produced.
  void MakeNode(int i) {
    const std::string name = NodeName(i);
    const std::string ip = "10.200." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1);
    const Status node = bench::CreateKwokNode(
        *admin_, name, {{"rdmastack.io/gateway-capable", "true"}, {"bench.rdmastack.io/pool", ns_}},
        ip);
    ASSERT_TRUE(node.ok()) << node.ToString();
    const Status rnode = bench::CreateRdmaNode(*admin_, name, bench::GatewayNodeStatus(i));
    ASSERT_TRUE(rnode.ok()) << rnode.ToString();
  }

  // The real operator, with `extra` flags; returns once it has been idle for 10 s (caches
  // synced and what it does at start done: it writes the bench's hand-made RdmaNodes in its own
  // form once).
  void StartOperator(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--kubeconfig",
                                  env_->kubeconfig,
                                  "--metrics-bind-address=0",
                                  "--health-probe-bind-address=0",
                                  "--agent-namespace=" + ns_,
                                  "--agent-bind-address=127.0.0.1:0",
                                  "--agent-stale-ttl=2h",
                                  "--node-label-grace=2h",
                                  // The bench pool tolerates every taint (its nodes are kwok's).
                                  "--allow-control-plane-tolerations"};
    args.insert(args.end(), extra.begin(), extra.end());
    operator_ = std::make_unique<OperatorProcess>("gwp-bench", args);
    identity_ = operator_->Identity();
    ASSERT_FALSE(identity_.empty()) << operator_->Output();
    WaitIdle();
  }
  int OperatorWriteCount() const {
    int n = 0;
    for (const AuditedWrite& w : ReadAuditedWrites())
      if (w.user_agent.find(identity_) != std::string::npos) ++n;
    return n;
  }
  void WaitIdle() const {
    for (int last = -1, now = OperatorWriteCount(); now != last; now = OperatorWriteCount()) {
      last = now;
      std::this_thread::sleep_for(seconds(10));
    }
  }

  std::string Pool(const std::string& upgrade = "") const {
    return R"(apiVersion: v1
kind: Secret
metadata: {name: bench-root}
stringData: {accessKeyId: bench, secretAccessKey: bench-secret}
---
apiVersion: rdmastack.io/v1alpha1
kind: GatewayPool
metadata: {name: bench}
spec:
  nodeSelector: {bench.rdmastack.io/pool: )" +
           ns_ + R"(}
  tolerations: [{operator: Exists}]
  gateway: {image: "registry.local/rdmastack/vgwrdma:1.8.0-cuobj1", version: 1.8.0}
  serverLibrary: {version: 1.2.0.68, image: "registry.local/rdmastack/libcuobjserver:1.2.0.68"}
  s3: {credentialsSecret: {name: bench-root}}
  rdma: {interface: bond0}
  backend: {posix: {hostPath: /lustre, pathTemplate: "/lustre/bench-{nodeName}"}}
)" + upgrade;
  }

  std::string ns_;
  int nodes_ = 0;
  std::unique_ptr<OperatorProcess> operator_;
  std::string identity_;
};

TEST_F(GatewayPoolBench, WritesAndOperatorShareFromApplyToReady) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const int n = NodeCount();
  const auto setup = WallClock::now();
  nodes_ = n;
  controllers::ParallelFor(n, 8, [&](size_t i) { MakeNode(static_cast<int>(i)); });
  std::printf("setup: %d kwok nodes and RdmaNodes in %.1f s\n", n,
              Seconds(WallClock::now() - setup));

  StartOperator();
  if (HasFatalFailure()) return;
  const std::string& identity = identity_;

  const auto applied = WallClock::now();
  CommandResult apply = env_->Kubectl({"apply", "-n", ns_, "-f", "-"}, Pool());
  ASSERT_EQ(apply.exit_code, 0) << apply.err;
  CommandResult wait =
      env_->Kubectl({"wait", "--for=condition=Ready", "gwp/bench", "-n", ns_, "--timeout=900s"});
  ASSERT_EQ(wait.exit_code, 0) << wait.err << operator_->Output().substr(0, 4000);
  const auto ready_seen = WallClock::now();
  const std::string counts =
      env_->Kubectl({"get", "gwp", "bench", "-n", ns_, "-o", "jsonpath={.status.nodeCounts}"}).out;
  const ProcStat stat = ReadProcStat(operator_->pid());
  std::this_thread::sleep_for(seconds(5));  // the audit log is written asynchronously

  const std::vector<AuditedWrite> all = ReadAuditedWrites();
  std::map<std::string, int> by_resource;
  int writes = 0;
  WallClock::time_point last_setup_write = applied, ready_write{}, last_pod_ready = applied;
  for (const AuditedWrite& w : all) {
    if (w.received < applied) continue;
    // The pool's work: objects in its namespace and the bench's nodes (others' leftovers and the
    // node-side controllers' RdmaNode writes are not).
    const bool ours = w.namespace_ == ns_ || (w.resource == "nodes" && w.name.rfind(ns_, 0) == 0);
    if (w.user_agent.find(identity) != std::string::npos && ours) {
      if (w.received > ready_seen) continue;
      ++writes;
      ++by_resource[w.verb + " " + w.resource];
      if (w.resource == "nodes" || w.resource == "daemonsets")
        last_setup_write = std::max(last_setup_write, w.received);
      if (w.resource == "gatewaypools" && w.received > ready_write) ready_write = w.received;
    } else if (w.resource == "pods" && w.namespace_ == ns_ && w.received <= ready_seen &&
               w.user_agent.find("kwok") != std::string::npos) {
      last_pod_ready = std::max(last_pod_ready, w.received);
    }
  }
  std::string breakdown;
  for (const auto& [k, v] : by_resource) breakdown += k + " " + std::to_string(v) + ", ";
  const double share =
      Seconds(last_setup_write - applied) + std::max(0.0, Seconds(ready_write - last_pod_ready));
  std::printf(
      "nodes %d: apply -> Ready %.1f s; operator writes %d (target <= %d): %s\n"
      "operator share %.2f s (apply -> last label/DaemonSet write %.2f s, last pod Ready -> Ready "
      "status %.2f s); nodeCounts %s; operator RSS %.1f MiB, CPU %.1f s\n",
      n, Seconds(ready_seen - applied), writes, static_cast<int>(1.05 * n + 20), breakdown.c_str(),
      share, Seconds(last_setup_write - applied),
      std::max(0.0, Seconds(ready_write - last_pod_ready)), counts.c_str(), stat.rss_kib / 1024.0,
      stat.cpu_s);
  EXPECT_LE(writes, 1.05 * n + 20);
  EXPECT_LE(share, 5.0);
}

int Parallel() {
  const char* p = std::getenv("RDMASTACK_GWP_BENCH_PARALLEL");
  return p != nullptr ? std::atoi(p) : 100;
}

// 1.2.0.68 -> 2.0.0.109 SideBySide over N kwok nodes, maxParallel P, each new pod Ready 10 s after
// it was scheduled (the kwok stage delay): total time against the floor ceil(N/P) x 10 s, the
// invariants sampled every second, and the operator's writes per node moved (audit log). Phase
// counts over time go to $RDMASTACK_BENCH_OUT/upgrade-phases.csv for the plot
// (tests/bench/gatewaypool/plot_upgrade.py).
TEST_F(GatewayPoolBench, SideBySideUpgradeAgainstTheFloor) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const int n = NodeCount(), parallel = Parallel();
  constexpr int kReadyDelay = 10;
  nodes_ = n;
  controllers::ParallelFor(n, 8, [&](size_t i) { MakeNode(static_cast<int>(i)); });
  // The kwok pods have no process behind them: the operator trusts their Ready condition.
  StartOperator(
      {"--upgrade-validation=pod-ready",
       "--gateway-pod-label=kwok.rdmastack.io/ready-delay=" + std::to_string(kReadyDelay) + "s"});
  if (HasFatalFailure()) return;
  const std::string upgrade =
      "  upgrade: {strategy: SideBySide, maxParallel: " + std::to_string(parallel) +
      ", drainSeconds: 0, validationTimeout: 10m, autoRollback: true}\n";
  ASSERT_EQ(env_->Kubectl({"apply", "-n", ns_, "-f", "-"}, Pool(upgrade)).exit_code, 0);
  CommandResult wait =
      env_->Kubectl({"wait", "--for=condition=Ready", "gwp/bench", "-n", ns_, "--timeout=900s"});
  ASSERT_EQ(wait.exit_code, 0) << wait.err;
  WaitIdle();

  const auto start = WallClock::now();
  CommandResult patch = env_->Kubectl(
      {"patch", "gwp", "bench", "-n", ns_, "--type=merge", "-p",
       R"({"spec":{"gateway":{"image":"registry.local/rdmastack/vgwrdma:1.8.0-cuobj2",)"
       R"("version":"1.8.0-cuobj2"},"serverLibrary":{"version":"2.0.0.109",)"
       R"("image":"registry.local/rdmastack/libcuobjserver:2.0.0.109"}}})"});
  ASSERT_EQ(patch.exit_code, 0) << patch.err;

  const char* out_dir = std::getenv("RDMASTACK_BENCH_OUT");
  const std::string csv_path = std::string(out_dir ? out_dir : ".") + "/upgrade-phases.csv";
  FILE* csv = std::fopen(csv_path.c_str(), "w");
  ASSERT_NE(csv, nullptr) << csv_path;
  std::fprintf(csv,
               "seconds,pending,startNew,validate,switch,drain,stopOld,done,rollBack,failed,"
               "readyEndpoints\n");
  static const char* const kPhases[] = {"pending", "startNew", "validate", "switch", "drain",
                                        "stopOld", "done",     "rollBack", "failed"};
  int violations = 0, samples = 0, max_in_flight = 0;
  std::string first_violation;
  auto done = [&] {
    auto pool = admin_->Get(crd::kinds::GatewayPool(), ns_, "bench");
    if (!pool.ok()) return false;
    std::map<std::string, int64_t> phase;
    for (const char* p : kPhases)
      phase[p] = pool->GetInt({"status", "currentUpgrade", "phases", p}).value_or(0);
    std::set<std::string> ready;
    static const k8s::ResourceType kSlices{"discovery.k8s.io", "v1", "EndpointSlice",
                                           "endpointslices", true};
    auto slices = admin_->List(kSlices, ns_);
    if (slices.ok()) {
      for (const auto& slice : slices->items) {
        for (const auto& e : slice.GetArray({"endpoints"}))
          if (e.GetBool({"conditions", "ready"}).value_or(false))
            ready.insert(e.GetString({"nodeName"}).value_or(""));
      }
    }
    const int in_flight = static_cast<int>(phase["startNew"] + phase["validate"] + phase["switch"] +
                                           phase["drain"] + phase["stopOld"] + phase["rollBack"]);
    max_in_flight = std::max(max_in_flight, in_flight);
    ++samples;
    std::string why;
    if (in_flight > parallel) why = std::to_string(in_flight) + " nodes in flight";
    if (slices.ok() && static_cast<int>(ready.size()) < n)
      why = std::to_string(n - static_cast<int>(ready.size())) + " nodes without a ready endpoint";
    if (!why.empty() && violations++ == 0) first_violation = why;
    std::fprintf(csv, "%.1f", Seconds(WallClock::now() - start));
    for (const char* p : kPhases) std::fprintf(csv, ",%lld", static_cast<long long>(phase[p]));
    std::fprintf(csv, ",%zu\n", ready.size());
    const bool finished = pool->GetString({"status", "library"}) == "2.0.0.109" &&
                          !pool->Has({"status", "currentUpgrade"}) &&
                          !admin_->Get(k8s::kinds::DaemonSet(), ns_, "bench-gateway-v1").ok();
    return finished;
  };
  bool finished = false;
  while (!finished && WallClock::now() - start < seconds(1800)) {
    finished = done();
    if (!finished) std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  }
  const auto end = WallClock::now();
  std::fclose(csv);
  // The operator's log (each node patch with its time) beside the CSV, for a per-node timeline.
  std::filesystem::copy_file(operator_->output_path(),
                             std::string(out_dir ? out_dir : ".") + "/upgrade-operator.log",
                             std::filesystem::copy_options::overwrite_existing);
  ASSERT_TRUE(finished) << operator_->Output().substr(0, 4000);
  std::this_thread::sleep_for(seconds(5));  // the audit log is written asynchronously

  std::map<std::string, int> by_resource;
  int writes = 0;
  for (const AuditedWrite& w : ReadAuditedWrites()) {
    if (w.received < start || w.received > end) continue;
    if (w.user_agent.find(identity_) == std::string::npos) continue;
    ++writes;
    ++by_resource[w.verb + " " + w.resource];
  }
  std::string breakdown;
  for (const auto& [k, v] : by_resource) breakdown += k + " " + std::to_string(v) + ", ";
  const double floor = std::ceil(static_cast<double>(n) / parallel) * kReadyDelay;
  const double total = Seconds(end - start);
  const ProcStat stat = ReadProcStat(operator_->pid());
  std::printf(
      "upgrade of %d nodes, maxParallel %d: %.1f s against the floor %.0f s (overhead %.0f%%, "
      "target <= 10%%); %d samples, max %d in flight, %d invariant violations%s%s; operator "
      "writes %d = %.2f per node: %s\noperator RSS %.1f MiB, CPU %.1f s; phases: %s\n",
      n, parallel, total, floor, 100.0 * (total - floor) / floor, samples, max_in_flight,
      violations, violations ? ", first: " : "", first_violation.c_str(), writes,
      static_cast<double>(writes) / n, breakdown.c_str(), stat.rss_kib / 1024.0, stat.cpu_s,
      csv_path.c_str());
  EXPECT_EQ(violations, 0) << first_violation;
  EXPECT_LE(max_in_flight, parallel);
}

}  // namespace
}  // namespace rdmastack::testing
