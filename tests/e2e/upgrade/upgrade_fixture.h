#pragma once
// What the upgrade end-to-end tests share: the pool on simulated storage nodes, a watcher of the
// invariants clients and the API server see, and helpers to drive and read an upgrade.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "tests/e2e/common/pool_e2e_fixture.h"
#include "tests/e2e/common/pool_traffic.h"

namespace rdmastack::testing {

using namespace std::chrono_literals;

constexpr char kFixture[] = "storage-cx6-ib-ipoib-bond0-el8-inbox";

// Samples the EndpointSlices and the nodes' upgrade annotations twice a second.
class InvariantWatcher {
 public:
  InvariantWatcher(const ClusterEnv& env, std::string ns, std::string pool,
                   std::set<std::string> nodes, int max_parallel)
      : env_(env),
        ns_(std::move(ns)),
        pool_(std::move(pool)),
        nodes_(std::move(nodes)),
        max_parallel_(max_parallel) {}
  ~InvariantWatcher() { Stop(); }
  void Start() {
    thread_ = std::thread([this] {
      while (!stop_) {
        Sample();
        std::this_thread::sleep_for(500ms);
      }
    });
  }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::vector<std::string> violations() const {
    std::lock_guard lock(mu_);
    return violations_;
  }
  int max_in_flight() const { return max_in_flight_; }
  std::set<std::string> phases_seen() const {
    std::lock_guard lock(mu_);
    return phases_seen_;
  }
  // node -> distinct "started" stamps of its moves to `to`.
  std::map<std::string, std::set<int64_t>> moves(const std::string& to) const {
    std::lock_guard lock(mu_);
    auto it = moves_.find(to);
    return it == moves_.end() ? std::map<std::string, std::set<int64_t>>{} : it->second;
  }

 private:
  void Sample() {
    const std::vector<SliceEndpoint> endpoints = ReadEndpoints(env_, ns_, pool_);
    k8s::Client* api = env_.Api();
    if (endpoints.empty() || api == nullptr) return;
    auto nodes = api->List(k8s::kinds::Node(), "", {});
    if (!nodes.ok()) return;  // the API server was busy: no sample
    std::lock_guard lock(mu_);
    for (const std::string& node : nodes_) {
      int ready = 0;
      for (const auto& e : endpoints) ready += e.node == node && e.ready;
      if (ready == 0) violations_.push_back("no ready endpoint for " + node);
    }
    const std::string key = "upgrade.gwp.rdmastack.io/" + ns_ + "." + pool_;
    int in_flight = 0;
    std::string moving;
    for (const k8s::JsonObject& node : nodes->items) {
      const auto& meta = node.value()["metadata"];
      if (!meta.HasMember("annotations") || !meta["annotations"].HasMember(key.c_str())) continue;
      rapidjson::Document state;
      state.Parse(meta["annotations"][key.c_str()].GetString());
      if (state.HasParseError() || !state.IsObject()) continue;
      const std::string phase = state["phase"].GetString();
      phases_seen_.insert(phase);
      if (phase != "Done" && phase != "Failed") {
        ++in_flight;
        moving += std::string(" ") + meta["name"].GetString() + "=" + phase;
      }
      moves_[state["to"].GetString()][meta["name"].GetString()].insert(state["started"].GetInt64());
    }
    max_in_flight_ = std::max(max_in_flight_.load(), in_flight);
    if (in_flight > max_parallel_)
      violations_.push_back(std::to_string(in_flight) + " nodes in flight:" + moving);
  }

  const ClusterEnv& env_;
  const std::string ns_, pool_;
  const std::set<std::string> nodes_;
  const int max_parallel_;
  std::atomic<bool> stop_{false};
  std::atomic<int> max_in_flight_{0};
  mutable std::mutex mu_;
  std::vector<std::string> violations_;
  std::set<std::string> phases_seen_;
  std::map<std::string, std::map<std::string, std::set<int64_t>>> moves_;
  std::thread thread_;
};

class UpgradeE2eTest : public PoolE2eTest {
 protected:
  // `count` nodes of the bond0 fixture labelled into this test's pool, which goes Ready on them.
  void StartPool(const std::string& prefix, size_t count, const std::string& upgrade) {
    const std::string missing = NodesWithFixture(kFixture, count, &nodes_in_pool_);
    if (!missing.empty()) GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
    std::sort(nodes_in_pool_.begin(), nodes_in_pool_.end());  // the order nodes start in
    Start(prefix, SeedPool(upgrade));
    if (HasFatalFailure()) return;
    for (const std::string& n : nodes_in_pool_) {
      ASSERT_EQ(env_->Kubectl({"label", "node", n, selector_label_ + "=in"}).exit_code, 0);
    }
    ASSERT_TRUE(Eventually(
        [&] { return ReadyEndpointNodes("kvcache").size() == nodes_in_pool_.size(); }, 240s))
        << Diagnostics();
    ASSERT_EQ(PoolCondition("kvcache", "Upgrading", "reason"), "UpToDate") << Diagnostics();
    // A bucket per node: each node's backend directory is its own.
    for (const SliceEndpoint& e : Endpoints("kvcache")) {
      auto made = Client(e).Send({.method = "PUT", .path = "/" + ns_->name() + "-" + e.node});
      ASSERT_TRUE(made.ok() && made->status == 200) << e.node;
    }
  }
  void Patch(const std::string& patch) {
    CommandResult r =
        env_->Kubectl({"patch", "gwp", "kvcache", "-n", ns_->name(), "--type=merge", "-p", patch});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // scripts/cluster.sh ARGS, which must succeed.
  void ClusterScript(std::vector<std::string> args) const {
    args.insert(args.begin(), env_->cluster_script);
    CommandResult r = RunCommand(args);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  // Starts the traffic and the watcher, lets the traffic run 3 s, then asks for v2; returns the
  // requests made before the ask.
  int64_t StartUpgradeUnderTraffic(Traffic& traffic, InvariantWatcher& watcher) {
    traffic.Start();
    watcher.Start();
    std::this_thread::sleep_for(std::chrono::seconds(3));
    const int64_t before = traffic.requests();
    Patch(kToV2);
    return before;
  }
  std::string Phase(const std::string& node) const {
    const std::string key = "upgrade\\.gwp\\.rdmastack\\.io/" + ns_->name() + "\\.kvcache";
    const std::string json =
        Get({"get", "node", node, "-o", "jsonpath={.metadata.annotations." + key + "}"});
    rapidjson::Document d;
    if (json.empty() || d.Parse(json.c_str()).HasParseError()) return "";
    return d["phase"].GetString();
  }
  std::string NodeTracks(const std::string& node) const {
    std::string out;
    const std::string prefix = "gwp.rdmastack.io/" + ns_->name() + ".kvcache.";
    const std::string json = Get({"get", "node", node, "-o", "json"});
    rapidjson::Document d;
    if (json.empty() || d.Parse(json.c_str()).HasParseError()) return "?";
    for (const auto& m : d["metadata"]["labels"].GetObject()) {
      const std::string k = m.name.GetString();
      if (k.rfind(prefix, 0) == 0) out += (out.empty() ? "" : ",") + k.substr(prefix.size());
    }
    return out;
  }
  bool UpgradeDone() const {
    return PoolCondition("kvcache", "Upgrading", "reason") == "UpToDate" &&
           PoolField("kvcache", "{.status.library}") == "2.0.0.109" &&
           Get({"get", "ds", "kvcache-gateway-v1", "-n", ns_->name(), "--ignore-not-found", "-o",
                "name"})
               .empty();
  }
  // Every object the traffic wrote reads back byte-identical through its node's endpoint now.
  void ExpectObjectsReadBack(const Traffic& traffic) {
    std::map<std::string, SliceEndpoint> by_node;
    for (const SliceEndpoint& e : Endpoints("kvcache")) {
      if (e.ready) by_node[e.node] = e;
    }
    size_t checked = 0;
    for (const auto& [node, objects] : traffic.objects()) {
      ASSERT_TRUE(by_node.count(node)) << node;
      s3::S3Client client = Client(by_node[node]);
      for (const auto& [key, body] : objects) {
        auto got = client.Send({.method = "GET", .path = key});
        ASSERT_TRUE(got.ok()) << key;
        EXPECT_EQ(got->status, 200) << key;
        EXPECT_TRUE(got->body == body) << key << ": bytes differ";
        ++checked;
      }
    }
    EXPECT_GT(checked, 0u);
  }

  // Stops `traffic` and checks that it kept going (over 50 requests after `before`, counted at
  // `moment`) and that not one request failed.
  void StopAndExpectNoFailedRequest(Traffic& traffic, const char* what, int64_t before,
                                    const char* moment);

  std::string GatewayPodUids() const {
    return Get({"get", "pods", "-n", ns_->name(), "-l", "gatewaypool.rdmastack.io/name=kvcache",
                "-o", "jsonpath={.items[*].metadata.uid}"});
  }

  std::vector<std::string> nodes_in_pool_;  // sorted by name
};

inline std::string Join(const std::vector<std::string>& lines, size_t max = 20) {
  std::string out;
  for (size_t i = 0; i < lines.size() && i < max; ++i) out += lines[i] + "\n";
  return out;
}

inline void UpgradeE2eTest::StopAndExpectNoFailedRequest(Traffic& traffic, const char* what,
                                                         int64_t before, const char* moment) {
  traffic.Stop();
  std::printf("%s: %lld requests (%lld before %s), %zu failed\n", what,
              static_cast<long long>(traffic.requests()), static_cast<long long>(before), moment,
              traffic.failures().size());
  EXPECT_EQ(traffic.failures().size(), 0u) << Join(traffic.failures());
  EXPECT_GT(traffic.requests(), before + 50);
}

}  // namespace rdmastack::testing
