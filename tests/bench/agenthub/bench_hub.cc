// The AgentHub as its own process, for agenthub_bench to measure: a sink that only counts, the
// real API server behind it. Writes its port to --port-file once it listens; on SIGTERM prints
// "accepted=A reports=R heartbeats=H token_reviews=T" and exits.
#include <malloc.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "base/logging.h"
#include "operator/k8s/config.h"
#include "servers/agenthub/agent_hub.h"
#include "servers/agenthub/tls_buffer_mapping.h"

namespace {

std::atomic<bool> stop{false};
std::atomic<bool> print_heap{false};

// The allocator's view (SIGUSR1 from the bench): bytes in use vs. free but kept, and mmapped
// chunks, to tell the hub's live state from what glibc retains; OpenSSL's large buffers are mapped
// outside glibc (servers/agenthub/tls_buffer_mapping.h).
void PrintHeap() {
  const struct mallinfo2 m = mallinfo2();
  std::fprintf(
      stderr,
      "hub heap: in use %.1f MiB, free in arenas %.1f MiB (top %.1f), mmapped %.1f MiB, OpenSSL's "
      "own mappings %.1f MiB\n",
      static_cast<double>(m.uordblks) / (1 << 20), static_cast<double>(m.fordblks) / (1 << 20),
      static_cast<double>(m.keepcost) / (1 << 20), static_cast<double>(m.hblkhd) / (1 << 20),
      static_cast<double>(rdmastack::agenthub::MappedOpenSslBytes()) / (1 << 20));
}

class CountingSink final : public rdmastack::agenthub::AgentEventSink {
 public:
  void OnAgentConnected(const rdmastack::agenthub::AgentIdentity&) override { ++accepted; }
  void OnReport(const rdmastack::agenthub::AgentIdentity&,
                const rdmastack::agent::v1::NodeReport&) override {
    ++reports;
  }
  void OnPortCounters(const rdmastack::agenthub::AgentIdentity&,
                      const rdmastack::agent::v1::PortCounters&) override {}
  void OnHeartbeat(const rdmastack::agenthub::AgentIdentity&,
                   std::chrono::system_clock::time_point) override {
    ++heartbeats;
  }
  void OnAgentDisconnected(const rdmastack::agenthub::AgentIdentity&) override {}
  std::atomic<long> accepted{0}, reports{0}, heartbeats{0};
};

class NoEvents final : public rdmastack::runtime::EventRecorder {
 public:
  void Record(const rdmastack::k8s::JsonObject&, rdmastack::runtime::EventType, const std::string&,
              const std::string&, const std::string&) override {}
};

}  // namespace

int main(int argc, char** argv) {
  // As the operator's main does; RDMASTACK_AGENTHUB_BENCH_TLS_MAPPING=0 measures without it.
  const char* mapping = std::getenv("RDMASTACK_AGENTHUB_BENCH_TLS_MAPPING");
  const rdmastack::Status tls_buffer_mapping = mapping != nullptr && std::string(mapping) == "0"
                                                   ? rdmastack::OkStatus()
                                                   : rdmastack::agenthub::MapLargeOpenSslBuffers();
  if (argc != 6 && argc != 7) {
    std::fprintf(stderr,
                 "usage: %s KUBECONFIG NAMESPACE SERVICEACCOUNT HEARTBEAT_S PORT_FILE "
                 "[FAILURES_PER_MINUTE]\n",
                 argv[0]);
    return 2;
  }
  (void)rdmastack::InitLogging("warn");
  if (!tls_buffer_mapping.ok()) {
    std::fprintf(stderr, "%s\n", tls_buffer_mapping.message().c_str());
    return 1;
  }
  auto config = rdmastack::k8s::LoadKubeconfig(argv[1]);
  if (!config.ok()) return 1;
  auto client = rdmastack::k8s::NewRestClient(*config);
  if (!client.ok()) return 1;
  rdmastack::agenthub::AgentHubOptions o;
  o.listen_address = "127.0.0.1:0";
  o.policy.service_account_namespace = argv[2];
  o.policy.service_account_name = argv[3];
  o.certificates.namespace_ = argv[2];
  o.certificates.hosts = {"127.0.0.1"};
  o.streams.heartbeat_seconds = std::stoi(argv[4]);
  // Every load agent dials from 127.0.0.1: one address for thousands of agents. The flood
  // benchmark throttles refusals only (its agents are never refused).
  o.streams.per_address.max_pending = 0;
  o.streams.per_address.max_failures_per_minute = argc == 7 ? std::stoi(argv[6]) : 0;
  o.connections = {.max_connections = 1'000'000, .max_connections_per_address = 0};
  // "TOTAL,PER_ADDRESS": the connection limits (the connection floods run with the operator's
  // defaults, 4096,8).
  if (const char* v = std::getenv("RDMASTACK_AGENTHUB_BENCH_CONNECTIONS")) {
    if (std::sscanf(v, "%zu,%zu", &o.connections.max_connections,
                    &o.connections.max_connections_per_address) != 2) {
      std::fprintf(stderr, "RDMASTACK_AGENTHUB_BENCH_CONNECTIONS: %s is not TOTAL,PER_ADDRESS\n",
                   v);
      return 2;
    }
  }
  if (const char* v = std::getenv("RDMASTACK_AGENTHUB_BENCH_MEMORY_QUOTA")) {
    o.memory_quota_bytes = std::strtoul(v, nullptr, 10);
  }
  // Experiments without a rebuild (docs/agenthub.md "Where the bytes go").
  if (const char* v = std::getenv("RDMASTACK_AGENTHUB_BENCH_TSI_FRAME")) {
    o.tsi_max_frame_size = std::atoi(v);
  }
  if (const char* v = std::getenv("RDMASTACK_AGENTHUB_BENCH_MMAP_THRESHOLD")) {
    o.malloc_mmap_threshold_bytes = std::strtoul(v, nullptr, 10);
  }
  if (const char* v = std::getenv("RDMASTACK_AGENTHUB_BENCH_MUTEX_DEADLOCK_DETECTION")) {
    o.mutex_deadlock_detection = std::string(v) == "1";
  }
  if (const char* v = std::getenv("RDMASTACK_AGENTHUB_BENCH_BDP_PROBE")) {
    o.http2_bdp_probe = std::string(v) == "1";
  }
  if (const char* v = std::getenv("RDMASTACK_AGENTHUB_BENCH_TRIM_FRACTION")) {
    o.memory_trim.churn_fraction = std::atof(v);
  }
  // "name=value,name=value": integer gRPC channel arguments, e.g. grpc.http2.bdp_probe=0
  // (docs/agenthub.md "Where the CPU goes").
  if (const char* v = std::getenv("RDMASTACK_AGENTHUB_BENCH_GRPC_ARGS")) {
    std::string list = v;
    for (size_t at = 0; at < list.size();) {
      const size_t end = std::min(list.find(',', at), list.size());
      const std::string item = list.substr(at, end - at);
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::fprintf(stderr, "RDMASTACK_AGENTHUB_BENCH_GRPC_ARGS: %s is not name=integer\n",
                     item.c_str());
        return 2;
      }
      o.extra_channel_args.emplace_back(item.substr(0, eq), std::atoi(item.c_str() + eq + 1));
      at = end + 1;
    }
  }
  CountingSink sink;
  NoEvents events;
  rdmastack::runtime::MetricsRegistry metrics;
  rdmastack::agenthub::AgentHub hub(**client, **client, events, metrics, sink,
                                    rdmastack::RealClock::Instance(), o);
  if (auto s = hub.Start(); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::ofstream(argv[5]) << hub.port() << "\n";
  std::signal(SIGTERM, [](int) { stop = true; });
  std::signal(SIGUSR1, [](int) { print_heap = true; });
  while (!stop) {
    if (print_heap.exchange(false)) PrintHeap();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string rendered = metrics.Render();
  const size_t at = rendered.find("\nrdmastack_agenthub_token_reviews_total ");
  const std::string reviews = at == std::string::npos
                                  ? "?"
                                  : rendered.substr(at + 40, rendered.find('\n', at + 1) - at - 40);
  std::printf("accepted=%ld reports=%ld heartbeats=%ld token_reviews=%s\n", sink.accepted.load(),
              sink.reports.load(), sink.heartbeats.load(), reviews.c_str());
  std::fflush(stdout);
  std::_Exit(0);  // the measurement is over; do not wait for thousands of streams to wind down
}
