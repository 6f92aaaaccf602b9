// End to end, through the real client data plane: the rdmastack-operator process decides per GPU
// node from its agent's report whether it can use a ClientProfile and with which transport, runs
// rdmastack-client there (a real process on the simulated node, probing the node's fixture with
// the agent's own checks), and labels the node ready once that client is Ready. What the clients
// write onto their nodes (cuobj.json, endpoints, library) is read back from the nodes' host roots.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "tests/e2e/common/pool_e2e_fixture.h"

namespace rdmastack::testing {
namespace {

using namespace std::chrono_literals;

constexpr char kBond0[] = "storage-cx6-ib-ipoib-bond0-el8-inbox";
constexpr char kGpuDirect[] = "kvcache-gpudirect";
constexpr char kHostMem[] = "kvcache-hostmem";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The "address:port" of every endpoint in an endpoints.json the client wrote ("" entries for a
// file that does not parse).
std::set<std::string> ConfigEndpoints(const std::string& text, bool* parsed) {
  std::set<std::string> out;
  rapidjson::Document doc;
  *parsed = !text.empty() && !doc.Parse(text.c_str()).HasParseError() && doc.IsObject() &&
            doc.HasMember("endpoints") && doc["endpoints"].IsArray();
  if (!*parsed) return out;
  for (const auto& e : doc["endpoints"].GetArray()) {
    if (!e.IsString()) continue;
    std::string url = e.GetString();
    const size_t scheme = url.find("://");
    out.insert(scheme == std::string::npos ? url : url.substr(scheme + 3));
  }
  return out;
}

// properties.rdma_peer_type of a cuobj.json/cufile.json; "<none>" when absent, "<unparsable>".
std::string PeerType(const std::string& text) {
  rapidjson::Document doc;
  if (text.empty() || doc.Parse(text.c_str()).HasParseError() || !doc.IsObject() ||
      !doc.HasMember("properties") || !doc["properties"].IsObject())
    return "<unparsable>";
  const auto& p = doc["properties"];
  return p.HasMember("rdma_peer_type") && p["rdma_peer_type"].IsString()
             ? p["rdma_peer_type"].GetString()
             : "<none>";
}

class ClientProfileE2eTest : public PoolE2eTest {
 protected:
  void TearDown() override {
    // The profiles go while the operator runs: their finalizer removes clients and node labels.
    if (env_ != nullptr && ns_ != nullptr && operator_ != nullptr)
      env_->Kubectl({"delete", "clientprofiles", "--all", "-n", ns_->name(), "--timeout=60s"});
    PoolE2eTest::TearDown();
  }

  // The GPU nodes of the four fixtures the test cluster rotates through, and two bond0 storage
  // nodes for the pool. Empty when the cluster lacks them.
  std::string FindNodes() {
    std::vector<std::string> a6000, h100, far, none;
    for (const auto& [fixture, out] :
         std::vector<std::pair<const char*, std::vector<std::string>*>>{
             {"gpu-client-rtxa6000-bar1-256m-peermem-mofed", &a6000},
             {"gpu-client-h100-dmabuf-open-inbox", &h100},
             {"gpu-client-cross-socket-sys", &far},
             {"node-without-rdma", &none},
             {kBond0, &storage_}}) {
      const std::string missing = NodesWithFixture(fixture, out == &storage_ ? 2 : 1, out);
      if (!missing.empty()) return missing;
    }
    a6000_ = a6000[0], h100_ = h100[0], far_ = far[0], none_ = none[0];
    return "";
  }

  // A namespace, the operator (agents, gateways and clients on the simulated nodes), the seed
  // samples' profiles, and the seed pool on the two storage nodes unless `pool_later`.
  void StartAll(const std::string& prefix, bool pool_later) {
    ns_ = std::make_unique<TestNamespace>(*env_, prefix);
    selector_label_ = "e2e.rdmastack.io/" + ns_->name();
    ApplyAgentServiceAccount(*ns_);
    if (HasFatalFailure()) return;
    extra_operator_args_ = SimulatedClientArgs();
    hub_port_ = FreePortOn(bridge_);
    StartOperator(prefix);
    ns_->Apply(ReadSample("clientprofile-gpudirect.yaml"));
    ns_->Apply(ReadSample("clientprofile-hostmem.yaml"));
    if (!pool_later) StartPool();
  }

  void StartPool() {
    std::string pool = SeedPool("    drainSeconds: 10\n    maxParallel: 1\n");
    pool.replace(pool.find("SELECTOR"), 8, selector_label_);
    ns_->Apply(pool);
    for (const std::string& n : storage_) {
      ASSERT_EQ(
          env_->Kubectl({"label", "node", n, selector_label_ + "=in", "--overwrite"}).exit_code, 0);
    }
  }

  std::string Field(const std::string& profile, const std::string& jsonpath) const {
    return Get({"get", "cprof", profile, "-n", ns_->name(), "-o", "jsonpath=" + jsonpath});
  }
  std::string Condition(const std::string& profile, const std::string& type,
                        const std::string& field = "status") const {
    return Field(profile, "{.status.conditions[?(@.type==\"" + type + "\")]." + field + "}");
  }
  std::string Eligible(const std::string& profile, const std::string& node,
                       const std::string& field) const {
    return Field(profile, "{.status.eligibleNodes[?(@.node==\"" + node + "\")]." + field + "}");
  }
  std::string Ineligible(const std::string& profile, const std::string& node) const {
    return Field(profile, "{.status.ineligibleNodes[?(@.node==\"" + node + "\")].reason}");
  }
  std::string NodeLabel(const std::string& node, const std::string& profile) const {
    return Get({"get", "node", node, "-o",
                "jsonpath={.metadata.labels.rdmastack\\.io/client\\." + ns_->name() + "\\." +
                    profile + "}"});
  }
  // The profile's directory on the node's host root, where the client installs.
  std::string InstallDir(const std::string& node, const std::string& profile) const {
    return nodes_.at(node).host_root + "/var/lib/rdmastack/client/" + ns_->name() + "." + profile;
  }
  // The pool's ready endpoints as the EndpointSlices list them: "address:port".
  std::set<std::string> SliceEndpoints() const {
    std::set<std::string> out;
    for (const auto& e : Endpoints("kvcache")) {
      if (e.ready) out.insert(e.ip + ":" + std::to_string(e.port));
    }
    return out;
  }
  std::set<std::string> WrittenEndpoints(const std::string& node,
                                         const std::string& profile) const {
    bool parsed = false;
    return ConfigEndpoints(ReadFile(InstallDir(node, profile) + "/endpoints.json"), &parsed);
  }
  std::string ClientDiagnostics() const {
    return Diagnostics() + Get({"get", "cprof,ds,cm", "-n", ns_->name(), "-o", "wide"}) +
           Get({"get", "cprof", "-n", ns_->name(), "-o", "yaml"}) +
           Get({"get", "nodes", "--show-labels"});
  }

  std::vector<std::string> storage_;
  std::string a6000_, h100_, far_, none_;
};

TEST_F(ClientProfileE2eTest, SeedProfilesPickATransportPerNodeAndFollowThePool) {
  if (const std::string missing = FindNodes(); !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  StartAll("cprof-seed", /*pool_later=*/true);
  if (HasFatalFailure()) return;

  // No pool yet: a condition says so and nothing is deployed.
  ASSERT_TRUE(
      Eventually([&] { return Condition(kGpuDirect, "Ready", "reason") == "PoolNotFound"; }, 60s))
      << ClientDiagnostics();
  EXPECT_EQ(Condition(kGpuDirect, "Degraded"), "True");
  std::this_thread::sleep_for(3s);
  EXPECT_EQ(Get({"get", "ds,cm", "-n", ns_->name(), "-l", "clientprofile.rdmastack.io/name", "-o",
                 "name"}),
            "");

  // The pool arrives; both profiles go Ready without an edit.
  StartPool();
  if (HasFatalFailure()) return;
  for (const char* profile : {kGpuDirect, kHostMem}) {
    CommandResult wait =
        env_->Kubectl({"wait", "--for=condition=Ready", std::string("cprof/") + profile, "-n",
                       ns_->name(), "--timeout=300s"});
    ASSERT_EQ(wait.exit_code, 0) << profile << ": " << wait.err << ClientDiagnostics();
  }

  // GPU-direct at 192Mi: the A6000 through nvidia_peermem, the open-module H100 through dma-buf;
  // the cross-socket node and the node without RDMA are out, with their reasons.
  EXPECT_EQ(Eligible(kGpuDirect, a6000_, "memoryRegistration"), "PeerMem");
  EXPECT_EQ(Eligible(kGpuDirect, h100_, "memoryRegistration"), "DMABuf");
  EXPECT_EQ(Eligible(kGpuDirect, h100_, "transport"), "GPUDirect");
  EXPECT_EQ(Ineligible(kGpuDirect, far_), "GpuNicTooFar");
  EXPECT_EQ(Ineligible(kGpuDirect, none_), "NoRdmaDevice");
  EXPECT_EQ(Field(kGpuDirect, "{.status.nodeCounts.readyOfEligible}"), "2/2");
  // Host memory takes every node with a usable RDMA NIC.
  for (const std::string& n : {a6000_, h100_, far_})
    EXPECT_EQ(Eligible(kHostMem, n, "transport"), "HostMemory") << n;
  EXPECT_EQ(Ineligible(kHostMem, none_), "NoRdmaDevice");

  // Workloads select the ready label.
  EXPECT_EQ(NodeLabel(a6000_, kGpuDirect), "ready");
  EXPECT_EQ(NodeLabel(h100_, kGpuDirect), "ready");
  EXPECT_EQ(NodeLabel(far_, kGpuDirect), "");
  EXPECT_EQ(NodeLabel(far_, kHostMem), "ready");
  EXPECT_EQ(NodeLabel(none_, kHostMem), "");

  // What the clients wrote on their nodes: the transport of that node, the pool's ready endpoints.
  EXPECT_EQ(PeerType(ReadFile(InstallDir(h100_, kGpuDirect) + "/cuobj.json")), "dmabuf");
  const std::string peermem = ReadFile(InstallDir(a6000_, kGpuDirect) + "/cuobj.json");
  EXPECT_EQ(PeerType(peermem), "nvidia_peermem") << peermem;
  EXPECT_EQ(ReadFile(InstallDir(a6000_, kGpuDirect) + "/cufile.json"), peermem);
  EXPECT_EQ(PeerType(ReadFile(InstallDir(far_, kHostMem) + "/cuobj.json")), "<none>");
  const std::string env = ReadFile(InstallDir(h100_, kHostMem) + "/client.env");
  EXPECT_NE(env.find("VGWRDMA_GID_INDEX=0"), std::string::npos) << env;
  EXPECT_NE(env.find("LD_LIBRARY_PATH=/var/lib/rdmastack/client/" + ns_->name() + "." + kHostMem +
                     "/lib"),
            std::string::npos)
      << env;
  EXPECT_TRUE(
      std::filesystem::exists(InstallDir(h100_, kHostMem) + "/lib/libcuobjclient.so.1.2.0.68"));
  const std::set<std::string> slices = SliceEndpoints();
  ASSERT_EQ(slices.size(), storage_.size()) << ClientDiagnostics();
  EXPECT_TRUE(Eventually([&] { return WrittenEndpoints(h100_, kGpuDirect) == slices; }, 30s))
      << ClientDiagnostics();
  EXPECT_FALSE(std::filesystem::exists(InstallDir(far_, kGpuDirect)));
  EXPECT_FALSE(std::filesystem::exists(InstallDir(none_, kHostMem)));

  // The pool's gateways stop: the clients are no longer Ready, and keep their configuration.
  for (const std::string& n : storage_)
    ASSERT_EQ(env_->Kubectl({"label", "node", n, selector_label_ + "-"}).exit_code, 0);
  ASSERT_TRUE(Eventually([&] { return NodeLabel(h100_, kHostMem) == "eligible"; }, 120s))
      << ClientDiagnostics();
  EXPECT_EQ(Condition(kHostMem, "Ready"), "False");
  EXPECT_EQ(WrittenEndpoints(h100_, kHostMem), slices);
  // Back again.
  for (const std::string& n : storage_)
    ASSERT_EQ(env_->Kubectl({"label", "node", n, selector_label_ + "=in"}).exit_code, 0);
  ASSERT_TRUE(Eventually([&] { return Condition(kHostMem, "Ready") == "True"; }, 240s))
      << ClientDiagnostics();

  // 224Mi does not fit the A6000's BAR1 (256 MiB, 250 free, 32 MiB headroom): the node leaves the
  // profile, its client goes and removes what it installed, the label goes.
  ASSERT_TRUE(std::filesystem::exists(InstallDir(a6000_, kGpuDirect) + "/cuobj.json"));
  CommandResult patch =
      env_->Kubectl({"patch", "cprof", kGpuDirect, "-n", ns_->name(), "--type=merge", "-p",
                     R"({"spec":{"maxTransferSize":"224Mi"}})"});
  ASSERT_EQ(patch.exit_code, 0) << patch.err;
  ASSERT_TRUE(Eventually([&] { return Ineligible(kGpuDirect, a6000_) == "Bar1TooSmall"; }, 60s))
      << ClientDiagnostics();
  EXPECT_TRUE(Eventually(
      [&] {
        return NodeLabel(a6000_, kGpuDirect).empty() &&
               !std::filesystem::exists(InstallDir(a6000_, kGpuDirect)) &&
               Get({"get", "pods", "-n", ns_->name(), "-l",
                    std::string("clientprofile.rdmastack.io/name=") + kGpuDirect,
                    "--field-selector", "spec.nodeName=" + a6000_, "-o", "name"})
                   .empty();
      },
      120s))
      << ClientDiagnostics();
  // The host-memory profile on the same node is untouched.
  EXPECT_EQ(NodeLabel(a6000_, kHostMem), "ready");
  EXPECT_TRUE(std::filesystem::exists(InstallDir(a6000_, kHostMem) + "/cuobj.json"));
  ASSERT_TRUE(Eventually([&] { return Condition(kGpuDirect, "Ready") == "True"; }, 120s))
      << ClientDiagnostics();
  EXPECT_EQ(Field(kGpuDirect, "{.status.nodeCounts.eligibleOfMatched}"), "1/4");

  // Deleting a profile removes its clients, what they installed and its labels.
  CommandResult del =
      env_->Kubectl({"delete", "cprof", kHostMem, "-n", ns_->name(), "--timeout=60s"});
  ASSERT_EQ(del.exit_code, 0) << del.err;
  EXPECT_TRUE(Eventually(
      [&] {
        for (const std::string& n : {a6000_, h100_, far_}) {
          if (!NodeLabel(n, kHostMem).empty() || std::filesystem::exists(InstallDir(n, kHostMem)))
            return false;
        }
        return Get({"get", "ds", "-n", ns_->name(), "-l",
                    std::string("clientprofile.rdmastack.io/name=") + kHostMem, "-o", "name"})
            .empty();
      },
      120s))
      << ClientDiagnostics();
}

// During a pool upgrade the clients' endpoints move from the 1.x port to the 2.x one with the
// nodes, and the file they write is there and whole at every moment.
TEST_F(ClientProfileE2eTest, ClientConfigFollowsAPoolUpgrade) {
  if (const std::string missing = FindNodes(); !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  StartAll("cprof-upgrade", /*pool_later=*/false);
  if (HasFatalFailure()) return;
  CommandResult wait =
      env_->Kubectl({"wait", "--for=condition=Ready", std::string("cprof/") + kHostMem, "-n",
                     ns_->name(), "--timeout=300s"});
  ASSERT_EQ(wait.exit_code, 0) << wait.err << ClientDiagnostics();
  const std::string file = InstallDir(h100_, kHostMem) + "/endpoints.json";
  ASSERT_TRUE(
      Eventually([&] { return WrittenEndpoints(h100_, kHostMem) == SliceEndpoints(); }, 30s))
      << ClientDiagnostics();

  std::atomic<bool> stop{false};
  std::atomic<int> samples{0}, broken{0};
  std::set<std::string> seen;  // every endpoint any sample listed
  std::thread sampler([&] {
    while (!stop) {
      bool parsed = false;
      const std::set<std::string> now = ConfigEndpoints(ReadFile(file), &parsed);
      ++samples;
      if (!parsed || now.empty()) ++broken;
      seen.insert(now.begin(), now.end());
      std::this_thread::sleep_for(50ms);
    }
  });
  CommandResult patch =
      env_->Kubectl({"patch", "gwp", "kvcache", "-n", ns_->name(), "--type=merge", "-p", kToV2});
  EXPECT_EQ(patch.exit_code, 0) << patch.err;
  std::set<std::string> v2;
  for (const std::string& n : storage_) v2.insert(nodes_.at(n).address + ":7072");
  const bool moved = Eventually(
      [&] {
        return PoolField("kvcache", "{.status.library}") == "2.0.0.109" &&
               WrittenEndpoints(h100_, kHostMem) == v2;
      },
      300s);
  stop = true;
  sampler.join();
  ASSERT_TRUE(moved) << ClientDiagnostics();
  std::printf("endpoints.json on %s: %d samples, %d without a whole endpoint list\n", h100_.c_str(),
              samples.load(), broken.load());
  EXPECT_GT(samples.load(), 100);
  EXPECT_EQ(broken.load(), 0) << "samples without a whole endpoint list, of " << samples.load();
  for (const std::string& n : storage_) {
    EXPECT_TRUE(seen.count(nodes_.at(n).address + ":7071")) << n;
    EXPECT_TRUE(seen.count(nodes_.at(n).address + ":7072")) << n;
  }
  EXPECT_TRUE(Eventually([&] { return Condition(kHostMem, "Ready") == "True"; }, 60s))
      << ClientDiagnostics();
}

}  // namespace
}  // namespace rdmastack::testing
