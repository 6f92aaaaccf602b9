#include "tests/bench/runtime/fake_nodes.h"

#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "operator/k8s/api_error.h"

namespace rdmastack::bench {

namespace {

// Deterministic pseudo-random hex so that objects differ (no compression-friendly repetition).
std::string Hex(uint64_t seed, size_t len) {
  std::string out;
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
  while (out.size() < len) {
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 29;
    out += fmt::format("{:016x}", x);
  }
  out.resize(len);
  return out;
}

}  // namespace

k8s::JsonObject FakeNode(int index) {
  const std::string name = fmt::format("bench-node-{:05}", index);
  k8s::JsonObject n;
  n.SetApiVersion("v1");
  n.SetKind("Node");
  n.SetName(name);
  n.SetLabel("kubernetes.io/hostname", name);
  n.SetLabel("kubernetes.io/os", "linux");
  n.SetLabel("kubernetes.io/arch", "amd64");
  n.SetLabel("topology.kubernetes.io/zone", fmt::format("zone-{}", index % 3));
  n.SetLabel(index % 4 == 0 ? "node-role.rdmastack.io/storage" : "node-role.rdmastack.io/gpu", "");
  for (int i = 0; i < 96; ++i) {
    n.SetLabel(fmt::format("inventory.bench.rdmastack.io/attr-{:02}", i),
               Hex(static_cast<uint64_t>(index) * 1000 + i, 20));
  }
  n.SetAnnotation("node.alpha.kubernetes.io/ttl", "0");
  (void)n.SetString({"spec", "providerID"}, "bench://" + name);
  (void)n.SetString({"spec", "podCIDR"}, fmt::format("10.{}.{}.0/24", index / 256, index % 256));
  const std::pair<const char*, std::string> resources[] = {
      {"cpu", "128"},
      {"memory", "2113654784Ki"},
      {"pods", "110"},
      {"ephemeral-storage", "3750000000Ki"},
      {"hugepages-1Gi", "0"},
      {"hugepages-2Mi", "0"},
      {"nvidia.com/gpu", index % 4 == 0 ? "0" : "8"},
      {"rdma/rdma_shared_device_a", "63"},
  };
  for (const auto& [resource, value] : resources) {
    (void)n.SetString({"status", "capacity", resource}, value);
    (void)n.SetString({"status", "allocatable", resource}, value);
  }
  const char* condition_types[] = {"MemoryPressure", "DiskPressure", "PIDPressure",
                                   "NetworkUnavailable", "Ready"};
  for (const char* type : condition_types) {
    k8s::JsonObject c;
    const bool ready = std::string(type) == "Ready";
    (void)c.SetString({"type"}, type);
    (void)c.SetString({"status"}, ready ? "True" : "False");
    (void)c.SetString({"lastHeartbeatTime"}, "2026-11-29T08:00:00Z");
    (void)c.SetString({"lastTransitionTime"}, "2026-11-29T07:00:00Z");
    (void)c.SetString({"reason"}, ready ? "KubeletReady" : fmt::format("KubeletHasNo{}", type));
    (void)c.SetString({"message"}, ready ? "kubelet is posting ready status"
                                         : fmt::format("kubelet has no {}", type));
    (void)n.Append({"status", "conditions"}, c);
  }
  k8s::JsonObject address;
  (void)address.SetString({"type"}, "InternalIP");
  (void)address.SetString({"address"}, "127.0.0.1");
  (void)n.Append({"status", "addresses"}, address);
  const std::pair<const char*, std::string> info[] = {
      {"machineID", Hex(index, 32)},     {"systemUUID", Hex(index + 7, 32)},
      {"bootID", Hex(index + 13, 32)},   {"kernelVersion", "6.8.0-48-generic"},
      {"osImage", "Ubuntu 24.04.1 LTS"}, {"containerRuntimeVersion", "containerd://1.7.22"},
      {"kubeletVersion", "v1.36.3"},     {"kubeProxyVersion", "v1.36.3"},
      {"operatingSystem", "linux"},      {"architecture", "amd64"},
  };
  for (const auto& [key, value] : info) (void)n.SetString({"status", "nodeInfo", key}, value);
  for (int i = 0; i < 30; ++i) {
    k8s::JsonObject image;
    const std::string repo = fmt::format("registry.bench.example/ml-platform/component-{:02}", i);
    (void)image.Append({"names"}, k8s::JsonObject::Parse(fmt::format("\"{}@sha256:{}\"", repo,
                                                                     Hex(i * 31 + index % 7, 64)))
                                      .value());
    (void)image.Append(
        {"names"},
        k8s::JsonObject::Parse(fmt::format("\"{}:v1.{}.{}\"", repo, i, index % 5)).value());
    (void)image.SetInt({"sizeBytes"}, 100'000'000 + i * 7'654'321);
    (void)n.Append({"status", "images"}, image);
  }
  return n;
}

StatusOr<int> CreateFakeNodes(k8s::Client& client, int count, int threads) {
  // A one-item page tells how many nodes exist without transferring them.
  k8s::ListOptions probe;
  probe.limit = 1;
  auto existing = client.List(k8s::kinds::Node(), "", probe);
  if (!existing.ok()) return existing.status().WithContext("counting nodes");
  const int64_t total =
      static_cast<int64_t>(existing->items.size()) + existing->remaining_item_count.value_or(0);
  if (total >= count) return 0;
  std::atomic<int> next{0};
  std::atomic<int> created{0};
  std::mutex mu;
  Status first_error;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (int i = next++; i < count; i = next++) {
        auto r = client.Create(k8s::kinds::Node(), FakeNode(i));
        if (r.ok()) {
          ++created;
        } else if (!k8s::IsAlreadyExists(r.status())) {
          std::lock_guard<std::mutex> l(mu);
          if (first_error.ok()) first_error = r.status();
          return;
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  if (!first_error.ok()) return first_error.WithContext("creating fake nodes");
  return created.load();
}

std::vector<k8s::JsonPath> TrimmedNodeFields() {
  return {
      {"metadata", "labels", "kubernetes.io/hostname"},
      {"metadata", "labels", "topology.kubernetes.io/zone"},
      {"metadata", "labels", "node-role.rdmastack.io/storage"},
      {"metadata", "labels", "node-role.rdmastack.io/gpu"},
      {"spec", "unschedulable"},
      {"spec", "taints"},
      {"status", "allocatable", "nvidia.com/gpu"},
      {"status", "allocatable", "rdma/rdma_shared_device_a"},
      {"status", "nodeInfo", "kubeletVersion"},
      {"status", "nodeInfo", "kernelVersion"},
  };
}

}  // namespace rdmastack::bench
