// informer-scale-peer: the C++ side of the informer scale benchmark (docs/bench-scale.md). A Node
// informer and a Pod informer (all namespaces) in one process, in one of three forms, printing the
// same JSON lines as the client-go peer (gopeers/informer) so that scripts/bench-scale.sh reads
// both alike:
//
//   informer-scale-peer --kubeconfig FILE --form shipped|transform|metadata [--settle-ms 5000]
//   informer-scale-peer --kubeconfig FILE --populate N [--namespace NS]
//
//   - shipped: runtime::Informer with its default transform (drops managedFields only).
//   - transform: the transforms the operator's cache uses for these two types
//     (controllers/common/cache_transforms.h): Nodes through the label filter of the operator's
//     Node cache (node_label_filter.h) as one pool selecting on node-role.rdmastack.io/storage
//     leaves it, so that a Node keeps that label and the operator's own.
//   - metadata: identity metadata plus labels and annotations.
//
// Line 1 after both informers synced and a settle: sync wall and CPU time, RSS before start, after
// sync, and the peak (VmHWM). In the transform form, the pool's selector then moves to
// topology.kubernetes.io/zone, a key the cache dropped: the Node informer re-lists, and a
// "widened" line gives that re-list's wall and CPU time and the RSS after it. Then it waits for
// both reflectors to fetch their collection again (a relist, e.g. after the API server restarts)
// and prints line 2 with the RSS after it. It runs until SIGTERM.
//
// --populate makes N kwok-managed padded Nodes (tests/bench/runtime/fake_nodes.h) and one Pod per
// node (fake_pods.h) in NS (default scale-bench), keeping what exists, and exits.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "base/clock.h"
#include "controllers/common/cache_transforms.h"
#include "controllers/common/node_label_filter.h"
#include "controllers/common/parallel.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/client.h"
#include "operator/k8s/config.h"
#include "operator/runtime/informer.h"
#include "tests/bench/runtime/fake_nodes.h"
#include "tests/bench/scale/fake_pods.h"
#include "tests/harness/proc_stat.h"

namespace {

using namespace rdmastack;
using rdmastack::testing::ProcStat;
using rdmastack::testing::ReadProcStat;

// Resident memory and CPU time of this process, as the other benchmarks read them.
ProcStat Self() {
  return ReadProcStat(getpid());
}

int Fail(const std::string& why) {
  std::fprintf(stderr, "informer-scale-peer: %s\n", why.c_str());
  return 2;
}

std::atomic<bool> stop{false};

Status Populate(k8s::Client& client, int count, const std::string& ns) {
  k8s::JsonObject namespace_object;
  namespace_object.SetApiVersion("v1");
  namespace_object.SetKind("Namespace");
  namespace_object.SetName(ns);
  auto made = client.Create(k8s::kinds::Namespace(), namespace_object);
  if (!made.ok() && !k8s::IsAlreadyExists(made.status())) return made.status();
  // Pods are refused until the controller-manager has made the namespace's default ServiceAccount.
  for (int i = 0; !client.Get(k8s::kinds::ServiceAccount(), ns, "default").ok(); ++i) {
    if (i == 300)
      return DeadlineExceededError("no default ServiceAccount in " + ns + " after 60 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::mutex mu;
  Status first_error;
  auto keep = [&](const Status& s) {
    if (s.ok() || k8s::IsAlreadyExists(s)) return;
    std::lock_guard<std::mutex> l(mu);
    if (first_error.ok()) first_error = s;
  };
  controllers::ParallelFor(static_cast<size_t>(count), 8, [&](size_t i) {
    k8s::JsonObject node = bench::FakeNode(static_cast<int>(i));
    node.SetAnnotation("kwok.x-k8s.io/node", "fake");
    node.SetLabel("type", "kwok");
    keep(client.Create(k8s::kinds::Node(), node).status());
    keep(client
             .Create(k8s::kinds::Pod(),
                     bench::FakePod(static_cast<int>(i), ns, std::string(node.Name())))
             .status());
  });
  return first_error;
}

}  // namespace

// One pool's selector key (on a quarter of the padded nodes), then the key it moves to (on all).
constexpr char kSelectorKey[] = "node-role.rdmastack.io/storage";
constexpr char kWidenKey[] = "topology.kubernetes.io/zone";

int main(int argc, char** argv) {
  std::string kubeconfig, form = "shipped", ns = "scale-bench";
  int populate = 0;
  int settle_ms = 5000;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--kubeconfig" && i + 1 < argc) {
      kubeconfig = argv[++i];
    } else if (arg == "--form" && i + 1 < argc) {
      form = argv[++i];
    } else if (arg == "--populate" && i + 1 < argc) {
      populate = std::atoi(argv[++i]);
    } else if (arg == "--namespace" && i + 1 < argc) {
      ns = argv[++i];
    } else if (arg == "--settle-ms" && i + 1 < argc) {
      settle_ms = std::atoi(argv[++i]);
    } else {
      return Fail("unknown argument " + arg +
                  "; usage: informer-scale-peer --kubeconfig FILE (--form "
                  "shipped|transform|metadata [--settle-ms MS] | --populate N [--namespace NS])");
    }
  }
  if (kubeconfig.empty()) return Fail("--kubeconfig is required");
  auto client = k8s::NewRestClientFromKubeconfig(kubeconfig);
  if (!client.ok()) return Fail(client.status().ToString());
  if (populate > 0) {
    const Status s = Populate(**client, populate, ns);
    return s.ok() ? 0 : Fail(s.ToString());
  }

  runtime::InformerOptions nodes, pods;
  nodes.type = k8s::kinds::Node();
  pods.type = k8s::kinds::Pod();
  // The operator's Node cache (controllers/common/node_cache.h) as one pool selecting on
  // kSelectorKey would have it; later the pool's selector moves to kWidenKey (one re-list).
  std::mutex live_mu;
  std::set<std::string> live = {kSelectorKey};
  runtime::Informer* node_informer_ptr = nullptr;
  controllers::NodeLabelFilter filter(
      [&] {
        std::lock_guard<std::mutex> l(live_mu);
        return live;
      },
      [&] { node_informer_ptr->RequestRelist(); });
  if (form == "transform") {
    nodes.transform = filter.Transform();
    nodes.reflector.before_list = [&filter] { filter.BeforeList(); };
    nodes.on_replaced = [&filter] { filter.AfterReplace(); };
    pods.transform = controllers::PodReadiness();
  } else if (form == "metadata") {
    nodes.transform = pods.transform =
        runtime::TrimToFields({{"metadata", "labels"}, {"metadata", "annotations"}});
  } else if (form != "shipped") {
    return Fail("--form must be shipped, transform or metadata, not " + form);
  }
  signal(SIGTERM, [](int) { stop = true; });
  signal(SIGINT, [](int) { stop = true; });

  const ProcStat at_start = Self();
  const auto start = std::chrono::steady_clock::now();
  runtime::Informer node_informer(**client, RealClock::Instance(), nodes);
  node_informer_ptr = &node_informer;
  runtime::Informer pod_informer(**client, RealClock::Instance(), pods);
  node_informer.Start();
  pod_informer.Start();
  const auto deadline = RealClock::Instance().Now() + std::chrono::minutes(10);
  if (!node_informer.WaitForSync(deadline) || !pod_informer.WaitForSync(deadline)) {
    return Fail("informers did not sync within 10 minutes");
  }
  const double sync_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const double cpu_ms = (Self().cpu_s - at_start.cpu_s) * 1e3;
  const size_t objects = node_informer.store().Size() + pod_informer.store().Size();
  std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
  std::printf(
      "{\"impl\":\"ours\",\"form\":\"%s\",\"event\":\"synced\",\"objects\":%zu,\"sync_ms\":%.1f,"
      "\"cpu_ms\":%.1f,\"rss_start_kb\":%ld,\"rss_synced_kb\":%ld,\"hwm_kb\":%ld}\n",
      form.c_str(), objects, sync_ms, cpu_ms, at_start.rss_kib, Self().rss_kib, Self().hwm_kib);
  std::fflush(stdout);

  if (form == "transform") {
    // A selector now names a key the cache does not hold: one re-list of every Node, timed from
    // the ask until the cache covers the key.
    {
      std::lock_guard<std::mutex> l(live_mu);
      live.insert(kWidenKey);
    }
    const ProcStat before = Self();
    const auto asked = std::chrono::steady_clock::now();
    (void)filter.Covers({kWidenKey});
    while (!stop && !filter.Covers({kWidenKey}))
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const double relist_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - asked).count();
    const double relist_cpu_ms = (Self().cpu_s - before.cpu_s) * 1e3;
    std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
    std::printf(
        "{\"impl\":\"ours\",\"form\":\"%s\",\"event\":\"widened\",\"relist_ms\":%.1f,"
        "\"cpu_ms\":%.1f,\"nodes_relisted\":%zu,\"rss_kb\":%ld,\"hwm_kb\":%ld}\n",
        form.c_str(), relist_ms, relist_cpu_ms, node_informer.store().Size(), Self().rss_kib,
        Self().hwm_kib);
    std::fflush(stdout);
  }
  const int node_lists = node_informer.reflector().list_count();
  const int pod_lists = pod_informer.reflector().list_count();
  // The list count goes up just before the collection is handed to the store; the settle covers
  // the hand-over.
  while (!stop && (node_informer.reflector().list_count() <= node_lists ||
                   pod_informer.reflector().list_count() <= pod_lists)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (stop) return 0;
  const double cpu_relist = (Self().cpu_s - at_start.cpu_s) * 1e3;
  std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
  std::printf(
      "{\"impl\":\"ours\",\"form\":\"%s\",\"event\":\"relisted\",\"rss_kb\":%ld,\"hwm_kb\":%ld,"
      "\"cpu_ms\":%.1f}\n",
      form.c_str(), Self().rss_kib, Self().hwm_kib, cpu_relist);
  std::fflush(stdout);
  while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  node_informer.Stop();
  pod_informer.Stop();
  return 0;
}
