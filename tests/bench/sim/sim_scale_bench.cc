// Scale of the simulated-node runtime: a labelled DaemonSet with one small process (sleep, with an
// exec readiness probe every 10 s) on every simulated node of the cluster, at least 50. Reports
// the time until every pod is Ready, the runtime's own resident memory and CPU at steady state,
// the shims' memory, the runtime's API writes at steady state (from the audit log), and the time
// to stop everything. Needs a cluster with >= 50 simulated nodes (docs/benchmarks.md has the
// command); skips otherwise.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/harness/audit_log.h"
#include "tests/harness/proc_stat.h"
#include "tests/integration/sim/sim_cluster.h"

namespace rdmastack::bench {
namespace {

using rdmastack::testing::CommandResult;
using rdmastack::testing::Eventually;
using std::chrono::seconds;
using SteadyClock = std::chrono::steady_clock;

constexpr size_t kMinNodes = 50;
constexpr int kSteadySeconds = 60;

using rdmastack::testing::ProcStat;
using rdmastack::testing::ReadProcStat;

struct ShimMemory {
  int count = 0;
  long rss_kib = 0;      // counts shared library pages once per shim
  long pss_kib = 0;      // shared pages divided among the processes that map them
  long private_kib = 0;  // what each shim alone costs
};

// The container shims (`rdmastack-node-shim run`, children of the runtime); exec probes in flight
// are not counted.
ShimMemory Shims(pid_t runtime) {
  ShimMemory m;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    if (text.empty()) continue;
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string state;
    long ppid = 0;
    fields >> state >> ppid;
    std::ifstream cmdline(entry.path() / "cmdline");
    std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (ppid != runtime || args.find(std::string("run\0", 4)) == std::string::npos) continue;
    ++m.count;
    std::ifstream rollup(entry.path() / "smaps_rollup");
    for (std::string line; std::getline(rollup, line);) {
      auto kib = [&](const char* key) {
        return line.rfind(key, 0) == 0 ? std::atol(line.c_str() + std::strlen(key)) : 0L;
      };
      m.rss_kib += kib("Rss:");
      m.pss_kib += kib("Pss:");
      m.private_kib += kib("Private_Clean:") + kib("Private_Dirty:");
    }
  }
  return m;
}

pid_t RuntimePid(const rdmastack::testing::ClusterEnv& env) {
  CommandResult status = rdmastack::testing::RunCommand({env.cluster_script, "status"});
  const size_t at = status.out.find("node-runtime");
  if (at == std::string::npos) return -1;
  const size_t pid = status.out.find("(pid ", at);
  return pid == std::string::npos ? -1
                                  : static_cast<pid_t>(std::atol(status.out.c_str() + pid + 5));
}

// Writes by the runtime (its user agent) the API server received after `since`.
int RuntimeWritesSince(std::chrono::system_clock::time_point since) {
  int n = 0;
  for (const auto& w : rdmastack::testing::WritesByAgent(rdmastack::testing::ReadAuditedWrites(),
                                                         "rdmastack-node-runtime")) {
    n += w.received >= since;
  }
  return n;
}

TEST(SimScaleBench, OneProcessOnEveryOneOfFiftyNodes) {
  const rdmastack::testing::ClusterEnv* env = rdmastack::testing::GetClusterEnv();
  const sim::NodeTable nodes = rdmastack::testing::SimulatedNodes();
  if (env == nullptr || nodes.size() < kMinNodes || std::getenv("RDMASTACK_AUDIT_LOG") == nullptr) {
    GTEST_SKIP() << "needs a cluster with >= " << kMinNodes
                 << " simulated nodes and its `cluster.sh env` (see docs/benchmarks.md)";
  }
  const pid_t runtime = RuntimePid(*env);
  ASSERT_GT(runtime, 0);
  const ProcStat idle = ReadProcStat(runtime);
  rdmastack::testing::TestNamespace ns(*env, "simscale");
  const auto t0 = SteadyClock::now();
  ns.Apply(R"(apiVersion: apps/v1
kind: DaemonSet
metadata: {name: small}
spec:
  selector: {matchLabels: {app: small}}
  template:
    metadata: {labels: {app: small, rdmastack.io/simulate: run}}
    spec:
      hostNetwork: true
      terminationGracePeriodSeconds: 2
      containers:
      - name: sleep
        image: rdmastack.invalid/host:1
        command: [sleep, infinity]
        readinessProbe: {exec: {command: [test, -d, /proc/1]}, periodSeconds: 10}
)");
  const size_t want = nodes.size();
  CommandResult ready;
  const bool all_ready = Eventually(
      [&] {
        ready = env->Kubectl(
            {"get", "pods", "-n", ns.name(), "-o",
             "jsonpath={range "
             ".items[*]}{.status.conditions[?(@.type==\"Ready\")].status}{\"\\n\"}{end}"});
        return static_cast<size_t>(std::count(ready.out.begin(), ready.out.end(), 'T')) == want;
      },
      seconds(300));
  const double ready_s = std::chrono::duration<double>(SteadyClock::now() - t0).count();
  ASSERT_TRUE(all_ready) << ready.out;
  for (const auto& [name, node] : nodes) {
    EXPECT_EQ(rdmastack::testing::ProcessesInNetns(node.netns).size(), 2u)
        << name << ": one shim and its sleep";
  }

  const ProcStat before = ReadProcStat(runtime);
  const auto steady_from = std::chrono::system_clock::now();
  std::this_thread::sleep_for(seconds(kSteadySeconds));
  const ProcStat after = ReadProcStat(runtime);
  const int steady_writes = RuntimeWritesSince(steady_from);
  const ShimMemory shims = Shims(runtime);

  const auto t1 = SteadyClock::now();
  ASSERT_EQ(
      env->Kubectl({"delete", "daemonset", "small", "-n", ns.name(), "--wait=false"}).exit_code, 0);
  const bool stopped = Eventually(
      [&] {
        for (const auto& [name, node] : nodes) {
          if (!rdmastack::testing::ProcessesInNetns(node.netns).empty()) return false;
        }
        return ns.Pods("app=small").empty();
      },
      seconds(300));
  const double stop_s = std::chrono::duration<double>(SteadyClock::now() - t1).count();
  EXPECT_TRUE(stopped);

  const double cpu_ms_per_s = (after.cpu_s - before.cpu_s) * 1000.0 / kSteadySeconds;
  const double child_ms_per_s =
      (after.children_cpu_s - before.children_cpu_s) * 1000.0 / kSteadySeconds;
  std::printf(
      "sim-scale: nodes=%zu ready_s=%.1f runtime_rss_idle_kib=%ld runtime_rss_kib=%ld "
      "runtime_hwm_kib=%ld runtime_cpu_ms_per_s=%.2f probe_children_cpu_ms_per_s=%.2f shims=%d "
      "shims_rss_kib=%ld shims_pss_kib=%ld shims_private_kib=%ld steady_api_writes=%d "
      "stop_s=%.1f\n",
      want, ready_s, idle.rss_kib, after.rss_kib, after.hwm_kib, cpu_ms_per_s, child_ms_per_s,
      shims.count, shims.rss_kib, shims.pss_kib, shims.private_kib, steady_writes, stop_s);
  RecordProperty("runtime_rss_kib", static_cast<int>(after.rss_kib));
  EXPECT_EQ(shims.count, static_cast<int>(want));
  EXPECT_EQ(steady_writes, 0) << "status is written only when it changes";
}

}  // namespace
}  // namespace rdmastack::bench
