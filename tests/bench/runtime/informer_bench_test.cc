// Informer sync benchmark on a private cluster with 5,000 large fake Nodes: time to sync and
// resident memory per cached node, against the wall time of `kubectl get nodes -o json`.
// Needs RDMASTACK_BENCH_KUBECONFIG (a private cluster: see docs/bench-runtime.md); skips otherwise.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "operator/k8s/json_object.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::bench {
namespace {

constexpr int kNodes = 5000;
constexpr int kRuns = 3;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct SyncRun {
  double sync_ms = 0;
  double kib_per_object = 0;
  int64_t objects = 0;
};

SyncRun RunSync(const std::string& binary, const std::string& kubeconfig,
                const std::vector<std::string>& flags) {
  std::vector<std::string> argv = {binary, "--kubeconfig", kubeconfig};
  argv.insert(argv.end(), flags.begin(), flags.end());
  auto r = rdmastack::testing::RunCommand(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto json = k8s::JsonObject::Parse(r.out);
  EXPECT_TRUE(json.ok()) << r.out;
  if (!json.ok()) return {};
  return {json->GetDouble({"sync_ms"}).value_or(0), json->GetDouble({"kib_per_object"}).value_or(0),
          json->GetInt({"objects"}).value_or(0)};
}

TEST(InformerBench, SyncTimeAndMemoryAgainstKubectl) {
  const std::string kubeconfig = Env("RDMASTACK_BENCH_KUBECONFIG");
  if (kubeconfig.empty()) GTEST_SKIP() << "set RDMASTACK_BENCH_KUBECONFIG to a private cluster";
  const std::string kubectl =
      Env("RDMASTACK_KUBECTL").empty() ? "kubectl" : Env("RDMASTACK_KUBECTL");
  const std::string binary = rdmastack::testing::BinaryDir() + "/bin/informer-sync-bench";

  auto populated = rdmastack::testing::RunCommand(
      {binary, "--kubeconfig", kubeconfig, "--populate", std::to_string(kNodes)});
  ASSERT_EQ(populated.exit_code, 0) << populated.err;
  std::printf("populate: %s", populated.out.c_str());

  std::vector<double> kubectl_ms;
  for (int i = 0; i < kRuns; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto r = rdmastack::testing::RunCommand(
        {"/bin/sh", "-c", "\"$0\" --kubeconfig \"$1\" get nodes -o json > /dev/null", kubectl,
         kubeconfig});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    kubectl_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  const double kubectl_median = Median(kubectl_ms);

  struct Config {
    const char* name;
    std::vector<std::string> flags;
  };
  const Config configs[] = {{"full objects, watch-list (default)", {"--sync", "watch-list"}},
                            {"trimmed, watch-list (default)", {"--trim", "--sync", "watch-list"}},
                            {"full objects, watch-cache list", {"--sync", "watch-cache-list"}},
                            {"trimmed, watch-cache list", {"--trim", "--sync", "watch-cache-list"}},
                            {"full objects, paged list", {"--sync", "paged-list"}},
                            {"trimmed, paged list", {"--trim", "--sync", "paged-list"}}};
  std::printf(
      "\n| configuration | objects | sync ms (median of %d) | sync / kubectl | KiB RSS per node "
      "|\n",
      kRuns);
  std::printf("|---|---|---|---|---|\n");
  std::printf("| kubectl get nodes -o json | %d | %.0f | 1.00 | - |\n", kNodes, kubectl_median);
  for (const Config& c : configs) {
    std::vector<double> sync_ms, kib;
    int64_t objects = 0;
    for (int i = 0; i < kRuns; ++i) {
      const SyncRun run = RunSync(binary, kubeconfig, c.flags);
      sync_ms.push_back(run.sync_ms);
      kib.push_back(run.kib_per_object);
      objects = run.objects;
    }
    const double sync_median = Median(sync_ms);
    const double kib_median = Median(kib);
    std::printf("| %s | %lld | %.0f | %.2f | %.2f |\n", c.name, static_cast<long long>(objects),
                sync_median, sync_median / kubectl_median, kib_median);
    EXPECT_GE(objects, kNodes) << c.name;
    EXPECT_LE(sync_median, 1.5 * kubectl_median) << c.name;
    // The target holds for trimmed informers in the default mode and the paged one.
    if (std::string(c.name) == "trimmed, paged list" ||
        std::string(c.name) == "trimmed, watch-list (default)") {
      EXPECT_LE(kib_median, 4.0) << c.name;
    }
  }
}

}  // namespace
}  // namespace rdmastack::bench
