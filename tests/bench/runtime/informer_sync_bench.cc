// informer-sync-bench: starts one Node informer in a fresh process and reports how long the first
// sync took and what it cost in resident memory. One JSON line on stdout.
//
//   informer-sync-bench --kubeconfig FILE [--trim] [--sync watch-list|watch-cache-list|paged-list]
//                       [--populate N]
//
// --trim keeps only bench::TrimmedNodeFields(); --sync picks how the informer fetches the state
// (ReflectorOptions::InitialSync; default watch-list, the informer's default).
//
// --populate N creates N fake nodes first (tests/bench/runtime/fake_nodes.h) and exits.

#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "base/clock.h"
#include "operator/k8s/client.h"
#include "operator/k8s/config.h"
#include "operator/runtime/informer.h"
#include "tests/bench/runtime/fake_nodes.h"

namespace {

long RssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

int Fail(const std::string& why) {
  std::fprintf(stderr, "informer-sync-bench: %s\n", why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rdmastack;
  std::string kubeconfig;
  bool trim = false;
  std::string sync = "watch-list";
  int populate = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--kubeconfig" && i + 1 < argc) {
      kubeconfig = argv[++i];
    } else if (arg == "--trim") {
      trim = true;
    } else if (arg == "--sync" && i + 1 < argc) {
      sync = argv[++i];
    } else if (arg == "--populate" && i + 1 < argc) {
      populate = std::atoi(argv[++i]);
    } else {
      return Fail(
          "unknown argument " + arg +
          "; usage: informer-sync-bench --kubeconfig FILE [--trim] [--sync MODE] [--populate N]");
    }
  }
  if (kubeconfig.empty()) return Fail("--kubeconfig is required");
  auto client = k8s::NewRestClientFromKubeconfig(kubeconfig);
  if (!client.ok()) return Fail(client.status().ToString());

  if (populate > 0) {
    const auto start = std::chrono::steady_clock::now();
    auto created = bench::CreateFakeNodes(**client, populate, 8);
    if (!created.ok()) return Fail(created.status().ToString());
    std::printf("{\"created\":%d,\"bytes_per_node\":%zu,\"seconds\":%.1f}\n", *created,
                bench::FakeNode(0).Serialize().size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return 0;
  }

  runtime::InformerOptions options;
  options.type = k8s::kinds::Node();
  using Sync = runtime::ReflectorOptions::InitialSync;
  if (sync == "watch-list") {
    options.reflector.initial_sync = Sync::kWatchList;
  } else if (sync == "watch-cache-list") {
    options.reflector.initial_sync = Sync::kWatchCacheList;
  } else if (sync == "paged-list") {
    options.reflector.initial_sync = Sync::kPagedList;
  } else {
    return Fail("--sync must be watch-list, watch-cache-list or paged-list, not " + sync);
  }
  if (trim) options.transform = runtime::TrimToFields(bench::TrimmedNodeFields());
  runtime::Informer informer(**client, RealClock::Instance(), options);
  const long rss_start = RssKb();
  const auto start = std::chrono::steady_clock::now();
  informer.Start();
  if (!informer.WaitForSync(RealClock::Instance().Now() + std::chrono::minutes(5))) {
    return Fail("informer did not sync within 5 minutes");
  }
  const double sync_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const long rss_synced = RssKb();
  malloc_trim(0);
  const long rss_after_trim = RssKb();
  const size_t objects = informer.store().Size();
  std::printf(
      "{\"trim\":%s,\"sync\":\"%s\",\"objects\":%zu,\"sync_ms\":%.0f,\"rss_start_kb\":%ld,\"rss_"
      "synced_kb\":%ld,"
      "\"rss_released_kb\":%ld,\"kib_per_object\":%.2f}\n",
      trim ? "true" : "false", sync.c_str(), objects, sync_ms, rss_start, rss_synced,
      rss_after_trim,
      objects == 0 ? 0.0 : static_cast<double>(rss_after_trim - rss_start) / objects);
  informer.Stop();
  return 0;
}
