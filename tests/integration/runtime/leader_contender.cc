// leader-contender: one process contending for a Lease through runtime::Manager, for the leader
// election integration test and for trying failover by hand.
//
//   leader-contender --kubeconfig FILE --namespace NS --lease NAME --identity ID
//
// Prints "LEADING <id> <unix-ms>" when it starts leading. SIGTERM/SIGINT: releases the lease and
// exits 0. Losing the lease: exits 1 at once. Bad arguments or config: exits 2.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>

#include "base/clock.h"
#include "base/logging.h"
#include "operator/k8s/client.h"
#include "operator/k8s/config.h"
#include "operator/runtime/manager.h"
#include "operator/runtime/signals.h"

namespace {

int Usage(const char* why) {
  std::fprintf(stderr,
               "leader-contender: %s\nusage: leader-contender --kubeconfig FILE --namespace NS "
               "--lease NAME --identity ID\n",
               why);
  return 2;
}

long long UnixMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rdmastack;
  runtime::ShutdownSignals signals;  // before any thread starts
  std::map<std::string, std::string> flags;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strncmp(argv[i], "--", 2) != 0) return Usage("flags take the form --name value");
    flags[argv[i] + 2] = argv[i + 1];
  }
  if (argc % 2 == 0) return Usage("every flag needs a value");
  for (const char* required : {"kubeconfig", "namespace", "lease", "identity"}) {
    if (flags[required].empty()) return Usage((std::string("missing --") + required).c_str());
  }
  (void)InitLogging("info");

  auto config = k8s::LoadKubeconfig(flags["kubeconfig"]);
  if (!config.ok()) return Usage(config.status().ToString().c_str());
  auto client = k8s::NewRestClient(*config);
  if (!client.ok()) return Usage(client.status().ToString().c_str());

  runtime::ManagerOptions options;
  options.health_probe_bind_address = "0";
  options.metrics.bind_address = "0";
  options.leader_election =
      runtime::LeaderElectionConfig{flags["namespace"], flags["lease"], flags["identity"]};
  runtime::Manager manager(**client, RealClock::Instance(), options);
  signals.Watch([&](int) { manager.RequestStop(); });

  Status result;
  std::atomic<bool> done{false};
  std::thread runner([&] {
    result = manager.Run();
    done = true;
  });
  bool announced = false;
  while (!done.load()) {
    if (!announced && manager.Leading()) {
      std::printf("LEADING %s %lld\n", flags["identity"].c_str(), UnixMillis());
      std::fflush(stdout);
      announced = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  runner.join();
  if (!result.ok()) {
    std::fprintf(stderr, "leader-contender: %s\n", result.ToString().c_str());
    return result.code() == StatusCode::kAborted ? 1 : 2;
  }
  return 0;
}
