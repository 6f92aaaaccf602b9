// End to end, through the real client data plane: the rdmastack-operator process decides per GPU
// node from its agent's report whether it can use a ClientProfile and with which transport, runs
// rdmastack-client there (a real process on the simulated node, probing the node's fixture with
// the agent's own checks), and labels the node ready once that client is Ready. What the clients
// write onto their nodes (cuobj.json, endpoints, library) is read back from the nodes' host roots.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "operator/k8s/config.h"
#include "operator/k8s/json_object.h"
#include "servers/agenthub/hub_pki.h"
#include "tests/e2e/common/pool_e2e_fixture.h"
#include "tests/harness/golden.h"

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

// properties.rdma_dev_addr_list of a cuobj.json/cufile.json, comma-joined; "<unparsable>".
std::string DeviceList(const std::string& text) {
  rapidjson::Document doc;
  if (text.empty() || doc.Parse(text.c_str()).HasParseError() || !doc.IsObject() ||
      !doc.HasMember("properties") || !doc["properties"].IsObject() ||
      !doc["properties"].HasMember("rdma_dev_addr_list") ||
      !doc["properties"]["rdma_dev_addr_list"].IsArray())
    return "<unparsable>";
  std::string out;
  for (const auto& d : doc["properties"]["rdma_dev_addr_list"].GetArray())
    out += (out.empty() ? "" : ",") + std::string(d.IsString() ? d.GetString() : "?");
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
    std::vector<std::string> a6000, h100, far, none, hgx;
    for (const auto& [fixture, out] :
         std::vector<std::pair<const char*, std::vector<std::string>*>>{
             {"gpu-client-rtxa6000-bar1-256m-peermem-mofed", &a6000},
             {"gpu-client-h100-dmabuf-open-inbox", &h100},
             {"gpu-client-cross-socket-sys", &far},
             {"node-without-rdma", &none},
             {"gpu-client-hgx-h100-8gpu-8nic", &hgx},
             {kBond0, &storage_}}) {
      const std::string missing = NodesWithFixture(fixture, out == &storage_ ? 2 : 1, out);
      if (!missing.empty()) return missing;
    }
    a6000_ = a6000[0], h100_ = h100[0], far_ = far[0], none_ = none[0], hgx_ = hgx[0];
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

  // StartAll with the pool, then the host-memory profile Ready.
  void StartWithTheHostMemoryProfileReady(const std::string& prefix) {
    StartAll(prefix, /*pool_later=*/false);
    if (HasFatalFailure()) return;
    CommandResult wait =
        env_->Kubectl({"wait", "--for=condition=Ready", std::string("cprof/") + kHostMem, "-n",
                       ns_->name(), "--timeout=300s"});
    ASSERT_EQ(wait.exit_code, 0) << wait.err << ClientDiagnostics();
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
  // Nothing of the profile is left on the node: its directory is gone or empty. The uninstall pod
  // mounts only that directory, so the directory itself (its mount point) stays.
  bool Uninstalled(const std::string& node, const std::string& profile) const {
    std::error_code ec;
    const std::string dir = InstallDir(node, profile);
    return !std::filesystem::exists(dir, ec) || std::filesystem::is_empty(dir, ec);
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
  std::string a6000_, h100_, far_, none_, hgx_;
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
  EXPECT_EQ(Eligible(kGpuDirect, hgx_, "memoryRegistration"), "DMABuf");
  EXPECT_EQ(Field(kGpuDirect, "{.status.nodeCounts.readyOfEligible}"), "3/3");
  // Host memory takes every node with a usable RDMA NIC.
  for (const std::string& n : {a6000_, h100_, far_, hgx_})
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
  // The eight-GPU HGX node lists the NIC nearest each GPU, in GPU order: its eight compute NICs,
  // not its four storage ports.
  const std::string hgx = ReadFile(InstallDir(hgx_, kGpuDirect) + "/cuobj.json");
  EXPECT_EQ(PeerType(hgx), "dmabuf") << hgx;
  EXPECT_EQ(DeviceList(hgx), "mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11") << hgx;
  // Host memory has no GPU to be near: every device with a usable GID at the one index (the
  // IB compute NICs at 0).
  EXPECT_EQ(DeviceList(ReadFile(InstallDir(hgx_, kHostMem) + "/cuobj.json")).substr(0, 7),
            "mlx5_0,");
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
  // Both clients on the node follow the pool (each through its own ConfigMap volume and pass).
  for (const char* profile : {kGpuDirect, kHostMem}) {
    EXPECT_TRUE(Eventually([&] { return WrittenEndpoints(h100_, profile) == slices; }, 30s))
        << profile << ClientDiagnostics();
  }
  EXPECT_FALSE(std::filesystem::exists(InstallDir(far_, kGpuDirect)));
  EXPECT_FALSE(std::filesystem::exists(InstallDir(none_, kHostMem)));

  // The pool's gateways stop: the clients are no longer Ready, and keep their configuration.
  for (const std::string& n : storage_)
    ASSERT_EQ(env_->Kubectl({"label", "node", n, selector_label_ + "-"}).exit_code, 0);
  // Every host-memory node notices (each client's readiness lags by its own probe period): a
  // label still "ready" from before the outage would let the "settled" wait below pass early.
  ASSERT_TRUE(Eventually(
      [&] {
        for (const std::string& n : {h100_, a6000_, far_}) {
          if (NodeLabel(n, kHostMem) != "eligible") return false;
        }
        return true;
      },
      120s))
      << ClientDiagnostics();
  EXPECT_EQ(Condition(kHostMem, "Ready"), "False");
  // The client keeps the last list that named a gateway: both, or one if it read the list
  // published between the two gateways stopping. Never the empty list the outage ends with.
  const std::set<std::string> kept = WrittenEndpoints(h100_, kHostMem);
  EXPECT_FALSE(kept.empty()) << ClientDiagnostics();
  EXPECT_TRUE(std::includes(slices.begin(), slices.end(), kept.begin(), kept.end()))
      << ::testing::PrintToString(kept) << ClientDiagnostics();
  // Back again.
  for (const std::string& n : storage_)
    ASSERT_EQ(env_->Kubectl({"label", "node", n, selector_label_ + "=in"}).exit_code, 0);
  ASSERT_TRUE(Eventually([&] { return Condition(kHostMem, "Ready") == "True"; }, 240s))
      << ClientDiagnostics();
  // Settled again: both gateways published, the A6000's host-memory client Ready and following
  // them, before the other profile changes on that node. Settled means for longer than the
  // kubelet's ConfigMap volume resync (5 s here): a client can still be handed the empty endpoint
  // list the operator published during the outage after it has seen the gateways answer again,
  // and is not Ready while it holds that list.
  auto settled = [&] {
    const std::set<std::string> now = SliceEndpoints();
    return now.size() == storage_.size() && NodeLabel(a6000_, kHostMem) == "ready" &&
           WrittenEndpoints(a6000_, kHostMem) == now;
  };
  ASSERT_TRUE(Eventually(
      [&] {
        for (int i = 0; i < 8; ++i) {
          if (!settled()) return false;
          std::this_thread::sleep_for(1s);
        }
        return true;
      },
      180s))
      << ClientDiagnostics();

  // 224Mi does not fit the A6000's BAR1 (256 MiB, 250 free, 32 MiB headroom): the node leaves the
  // profile, its client goes, the uninstall pod removes what it installed (no workload there names
  // the profile), the label goes.
  ASSERT_TRUE(std::filesystem::exists(InstallDir(a6000_, kGpuDirect) + "/cuobj.json"));
  CommandResult patch =
      env_->Kubectl({"patch", "cprof", kGpuDirect, "-n", ns_->name(), "--type=merge", "-p",
                     R"({"spec":{"maxTransferSize":"224Mi"}})"});
  ASSERT_EQ(patch.exit_code, 0) << patch.err;
  ASSERT_TRUE(Eventually([&] { return Ineligible(kGpuDirect, a6000_) == "Bar1TooSmall"; }, 60s))
      << ClientDiagnostics();
  EXPECT_TRUE(Eventually(
      [&] {
        return NodeLabel(a6000_, kGpuDirect).empty() && Uninstalled(a6000_, kGpuDirect) &&
               Get({"get", "pods", "-n", ns_->name(), "-l",
                    std::string("clientprofile.rdmastack.io/name=") + kGpuDirect,
                    "--field-selector", "spec.nodeName=" + a6000_, "-o", "name"})
                   .empty();
      },
      120s))
      << ClientDiagnostics();
  // The host-memory profile on the same node is untouched.
  EXPECT_EQ(NodeLabel(a6000_, kHostMem), "ready")
      << Field(kHostMem, "{.status.eligibleNodes}") << "\n"
      << Get({"get", "pods", "-n", ns_->name(), "-o", "wide", "--field-selector",
              "spec.nodeName=" + a6000_})
      << Get({"get", "events", "-n", ns_->name(), "--sort-by=.lastTimestamp"});
  EXPECT_TRUE(std::filesystem::exists(InstallDir(a6000_, kHostMem) + "/cuobj.json"));
  ASSERT_TRUE(Eventually([&] { return Condition(kGpuDirect, "Ready") == "True"; }, 120s))
      << ClientDiagnostics();
  EXPECT_EQ(Field(kGpuDirect, "{.status.nodeCounts.eligibleOfMatched}"), "2/5");

  // Deleting a profile removes its clients, what they installed and its labels.
  CommandResult del =
      env_->Kubectl({"delete", "cprof", kHostMem, "-n", ns_->name(), "--timeout=60s"});
  ASSERT_EQ(del.exit_code, 0) << del.err;
  EXPECT_TRUE(Eventually(
      [&] {
        for (const std::string& n : {a6000_, h100_, far_, hgx_}) {
          if (!NodeLabel(n, kHostMem).empty() || !Uninstalled(n, kHostMem)) return false;
        }
        return Get({"get", "ds", "-n", ns_->name(), "-l",
                    std::string("clientprofile.rdmastack.io/name=") + kHostMem, "-o", "name"})
            .empty();
      },
      120s))
      << ClientDiagnostics();

  // PCIe ACS redirect turns on at the switch port above the H100's NIC (as a BIOS update can leave
  // it) while the topology stays PIX. Once the agent re-probes, the node leaves the GPU-direct
  // profile with a reason naming the bridge; with the redirect off again it comes back.
  ASSERT_EQ(Eligible(kGpuDirect, h100_, "memoryRegistration"), "DMABuf") << ClientDiagnostics();
  const std::string config =
      nodes_.at(h100_).host_root +
      "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/config";
  const std::string clear = ReadFile(config);
  ASSERT_EQ(clear.size(), 4096u) << config;
  auto write_config = [&](std::string bytes) {
    std::ofstream(config + ".new", std::ios::binary) << bytes;
    std::filesystem::rename(config + ".new", config);  // the agent never reads half a file
  };
  struct RestoreConfig {
    std::function<void()> restore;
    ~RestoreConfig() { restore(); }
  } restore{[&] { write_config(clear); }};
  std::string redirect = clear;
  redirect[0x106] =
      static_cast<char>(0x1d);  // ACSCtl: SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+
  write_config(redirect);
  HupAgent(h100_);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(Eventually([&] { return Ineligible(kGpuDirect, h100_) == "AcsRedirectOnPath"; }, 60s))
      << ClientDiagnostics();
  const std::string why =
      Field(kGpuDirect, "{.status.ineligibleNodes[?(@.node==\"" + h100_ + "\")].message}");
  EXPECT_NE(why.find("PCIe ACS on bridge 0000:17:01.0"), std::string::npos) << why;
  EXPECT_EQ(Get({"get", "rdmanode", h100_, "-o",
                 "jsonpath={.status.gpus[0].acsRedirect} {.status.gpus[0].acsRedirectBridges[0]}"}),
            "true 0000:17:01.0");
  EXPECT_TRUE(Eventually([&] { return NodeLabel(h100_, kGpuDirect).empty(); }, 120s))
      << ClientDiagnostics();
  write_config(clear);
  HupAgent(h100_);
  if (HasFatalFailure()) return;
  EXPECT_TRUE(Eventually(
      [&] { return Eligible(kGpuDirect, h100_, "memoryRegistration") == "DMABuf"; }, 60s))
      << ClientDiagnostics();
  EXPECT_EQ(Get({"get", "rdmanode", h100_, "-o", "jsonpath={.status.gpus[0].acsRedirect}"}),
            "false");

  // The IOMMU starts translating the GPU's DMA (a kernel booted without iommu=pt puts it in a
  // DMA-FQ group): the node leaves the GPU-direct profile with IommuTranslating, and comes back
  // once the group is gone.
  const std::string root = nodes_.at(h100_).host_root;
  const std::string group = root + "/sys/kernel/iommu_groups/31";
  const std::string link =
      root +
      "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0/"
      "iommu_group";
  struct RemoveGroup {
    std::string group, link;
    ~RemoveGroup() {
      std::error_code ec;
      std::filesystem::remove(link, ec);
      std::filesystem::remove_all(group, ec);
    }
  } remove_group{group, link};
  std::filesystem::create_directories(group);
  std::ofstream(group + "/type") << "DMA-FQ\n";
  std::filesystem::create_symlink("../../../../../../kernel/iommu_groups/31", link);
  HupAgent(h100_);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(Eventually([&] { return Ineligible(kGpuDirect, h100_) == "IommuTranslating"; }, 60s))
      << ClientDiagnostics();
  EXPECT_EQ(Get({"get", "rdmanode", h100_, "-o", "jsonpath={.status.gpus[0].iommu}"}),
            "Translated");
  std::filesystem::remove(link);
  std::filesystem::remove_all(group);
  HupAgent(h100_);
  if (HasFatalFailure()) return;
  EXPECT_TRUE(Eventually(
      [&] { return Eligible(kGpuDirect, h100_, "memoryRegistration") == "DMABuf"; }, 60s))
      << ClientDiagnostics();
  EXPECT_EQ(Get({"get", "rdmanode", h100_, "-o", "jsonpath={.status.gpus[0].iommu}"}), "Off");
}

// S3 over TLS seen from the GPU nodes: once the pool serves HTTPS (s3.tlsSecret), every client
// gets https URLs and the pool's CA through its endpoints file, installs the CA for applications
// (ca-bundle.pem, AWS_CA_BUNDLE) and keeps passing its own check of the pool, now over HTTPS
// against that CA: the profile stays Ready on every eligible node.
// The profiles' pool on two rails, on the two-rail storage node (rail-a on ib0 10.10.0.11/16,
// rail-b on ib1 10.11.0.11/16): the A6000 node's one NIC (ib0 10.10.0.21/24) is on rail a, so its
// client takes rail a's gateway alone; the HGX node has no NIC on either network, reaches the
// pool through routing, and takes both.
TEST_F(ClientProfileE2eTest, AClientOnOneRailOfAMultiRailPoolUsesThatRailsGateway) {
  if (const std::string missing = FindNodes(); !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  std::vector<std::string> twin;
  if (const std::string missing = NodesWithFixture("storage-cx7-ib-two-rails", 1, &twin);
      !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes it)";
  StartAll("cprof-rails", /*pool_later=*/true);
  if (HasFatalFailure()) return;
  std::string pool = ReadSample("gatewaypool-two-rails.yaml");
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"  name: twin\n", "  name: kvcache\n"},
           {"node-role.rdmastack.io/storage: \"\"", selector_label_ + ": \"in\""},
           {"port: 7071", "port: 7087"},
           {"port: 19100", "port: 19117"}}) {
    const size_t at = pool.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    pool.replace(at, from.size(), to);
  }
  ns_->Apply(pool);
  ASSERT_EQ(env_->Kubectl({"label", "node", twin[0], selector_label_ + "=in"}).exit_code, 0);
  CommandResult wait =
      env_->Kubectl({"wait", "--for=condition=Ready", std::string("cprof/") + kHostMem, "-n",
                     ns_->name(), "--timeout=300s"});
  ASSERT_EQ(wait.exit_code, 0) << wait.err << ClientDiagnostics();

  const std::string address = nodes_.at(twin[0]).address;
  const std::set<std::string> rail_a = {address + ":7087"};
  const std::set<std::string> both = {address + ":7087", address + ":7187"};
  EXPECT_TRUE(Eventually([&] { return WrittenEndpoints(hgx_, kHostMem) == both; }, 60s))
      << ReadFile(InstallDir(hgx_, kHostMem) + "/endpoints.json") << ClientDiagnostics();
  EXPECT_TRUE(Eventually([&] { return WrittenEndpoints(a6000_, kHostMem) == rail_a; }, 60s))
      << ReadFile(InstallDir(a6000_, kHostMem) + "/endpoints.json") << ClientDiagnostics();
  // GPU-direct on the A6000: its NIC is on rail a and beside its GPU.
  ASSERT_TRUE(Eventually([&] { return NodeLabel(a6000_, kGpuDirect) == "ready"; }, 120s))
      << ClientDiagnostics();
  EXPECT_EQ(WrittenEndpoints(a6000_, kGpuDirect), rail_a);
  EXPECT_EQ(DeviceList(ReadFile(InstallDir(a6000_, kGpuDirect) + "/cuobj.json")), "mlx5_0");
  // kubectl rdmastack why, from the pool's networks and the A6000's report.
  CommandResult why = RunCommand({BinaryDir() + "/bin/kubectl-rdmastack", "--kubeconfig",
                                  env_->kubeconfig, "why", a6000_, "-n", ns_->name()});
  EXPECT_NE(why.out.find("on rail rail-a 10.10.0.0/16, rail rail-b 10.11.0.0/16, the NIC each GPU "
                         "takes there:"),
            std::string::npos)
      << why.out << why.err;
  EXPECT_NE(why.out.find("rail-a"), std::string::npos) << why.out;
}

TEST_F(ClientProfileE2eTest, ClientsOfAnHttpsPoolVerifyItWithThePoolsCa) {
  if (const std::string missing = FindNodes(); !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  StartWithTheHostMemoryProfileReady("cprof-tls");
  if (HasFatalFailure()) return;
  const std::string eligible = Field(kHostMem, "{.status.nodeCounts.eligible}");
  ASSERT_TRUE(Eventually([&] { return SliceEndpoints().size() == storage_.size(); }, 60s))
      << ClientDiagnostics();
  std::vector<std::string> ips;
  for (const std::string& e : SliceEndpoints()) ips.push_back(e.substr(0, e.find(':')));
  const auto now = std::chrono::system_clock::now();
  auto ca = agenthub::MakeCertificateAuthority("rdmastack e2e client CA", now, 24h);
  ASSERT_TRUE(ca.ok());
  auto leaf = agenthub::IssueServingCertificate(*ca, ips, now, 24h);
  ASSERT_TRUE(leaf.ok());
  ApplyTlsSecret("kvcache-tls", leaf->cert_pem, leaf->key_pem, ca->cert_pem);
  if (HasFatalFailure()) return;
  ASSERT_EQ(env_->Kubectl({"patch", "gwp", "kvcache", "-n", ns_->name(), "--type=merge", "-p",
                           R"({"spec":{"s3":{"tlsSecret":{"name":"kvcache-tls"}}}})"})
                .exit_code,
            0);

  // The gateways move to HTTPS node by node; the clients' configuration changes at once, so they
  // reach the pool again only once gateways serve HTTPS. Wait for the whole pool first.
  UseTls(ca->cert_pem);
  ASSERT_TRUE(Eventually(
      [&] {
        if (PoolCondition("kvcache", "Upgrading", "reason") != "UpToDate") return false;
        size_t https = 0;
        for (const SliceEndpoint& e : Endpoints("kvcache")) https += e.ready && Serves(e);
        return https == storage_.size();
      },
      180s))
      << ClientDiagnostics();
  // The client on the H100 node installs the https configuration and the CA.
  const std::string dir = InstallDir(h100_, kHostMem);
  ASSERT_TRUE(Eventually(
      [&] {
        return ReadFile(dir + "/endpoints.json").find("\"https://") != std::string::npos &&
               ReadFile(dir + "/ca-bundle.pem") == ca->cert_pem;
      },
      240s))
      << ReadFile(dir + "/endpoints.json") << ClientDiagnostics();
  const std::string env = ReadFile(dir + "/client.env");
  EXPECT_NE(env.find("AWS_CA_BUNDLE=/var/lib/rdmastack/client/" + ns_->name() + "." + kHostMem +
                     "/ca-bundle.pem\n"),
            std::string::npos)
      << env;
  EXPECT_NE(env.find("AWS_ENDPOINT_URL=https://"), std::string::npos) << env;
  // Every eligible client passes its check over HTTPS, and keeps passing it.
  auto all_ready = [&] {
    return Field(kHostMem, "{.status.nodeCounts.ready}") == eligible &&
           Condition(kHostMem, "Ready") == "True";
  };
  ASSERT_TRUE(Eventually(all_ready, 120s)) << ClientDiagnostics();
  for (int i = 0; i < 8; ++i) {
    std::this_thread::sleep_for(1s);
    EXPECT_TRUE(all_ready()) << "sample " << i << ClientDiagnostics();
  }
  EXPECT_EQ(PoolCondition("kvcache", "Ready"), "True") << Diagnostics();
}

// spec.s3User: the operator makes the profile's user on every gateway with its bucket and nothing
// else, the profile's clients sign their check with its keys, a rotation keeps the replaced keys
// working for the grace period only, and deleting the profile removes the user and leaves the
// objects it wrote.
TEST_F(ClientProfileE2eTest, AProfilesS3UserReachesOnlyItsBucketOnEveryGatewayRotatesAndGoes) {
  if (const std::string missing = FindNodes(); !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  StartWithTheHostMemoryProfileReady("cprof-user");
  if (HasFatalFailure()) return;
  ASSERT_TRUE(Eventually([&] { return SliceEndpoints().size() == storage_.size(); }, 60s))
      << ClientDiagnostics();
  const std::vector<SliceEndpoint> gateways = AwaitReadyEndpoints("kvcache", storage_.size());
  ASSERT_EQ(gateways.size(), storage_.size());
  auto status_of = [&](const SliceEndpoint& e, const s3::Credentials* keys, const char* method,
                       const std::string& path, const std::string& body = "") {
    auto r = Client(e, keys ? std::optional(*keys) : std::nullopt)
                 .Send({.method = method, .path = path, .body = body});
    return r.ok() ? r->status : 0;
  };
  // Buckets of this run's own (the storage nodes' backends outlive a test).
  const std::string kv = "/kv-" + ns_->name(), other = "/other-" + ns_->name();
  // A bucket the profile does not name, with an object, on every gateway.
  for (const SliceEndpoint& e : gateways) {
    ASSERT_EQ(status_of(e, nullptr, "PUT", other), 200);
    ASSERT_EQ(status_of(e, nullptr, "PUT", other + "/x", "root's"), 200);
  }
  const std::string n = std::to_string(gateways.size());
  auto user_ready = [&](const std::string& previous_key) {
    return Field(kHostMem, "{.status.s3User.gatewaysOfEndpoints}") == n + "/" + n &&
           !Field(kHostMem, "{.status.s3User.accessKeyId}").empty() &&
           Field(kHostMem, "{.status.s3User.accessKeyId}") != previous_key;
  };
  auto secret_keys = [&] {
    const std::string secret = std::string(kHostMem) + "-s3-user";
    auto id = k8s::DecodeBase64(
        Get({"get", "secret", secret, "-n", ns_->name(), "-o", "jsonpath={.data.accessKeyId}"}));
    auto key = k8s::DecodeBase64(Get(
        {"get", "secret", secret, "-n", ns_->name(), "-o", "jsonpath={.data.secretAccessKey}"}));
    return s3::Credentials{id.value_or(""), key.value_or("")};
  };
  ASSERT_EQ(env_->Kubectl({"patch", "cprof", kHostMem, "-n", ns_->name(), "--type=merge", "-p",
                           R"({"spec":{"s3User":{"buckets":[")" + kv.substr(1) +
                               R"("],"previousKeyGraceSeconds":15}}})"})
                .exit_code,
            0);
  ASSERT_TRUE(Eventually([&] { return user_ready(""); }, 90s)) << ClientDiagnostics();
  const s3::Credentials first = secret_keys();
  EXPECT_EQ(first.access_key_id, Field(kHostMem, "{.status.s3User.accessKeyId}"));
  for (const SliceEndpoint& e : gateways) {
    const std::string object = kv + "/from-" + e.ip;
    EXPECT_EQ(status_of(e, &first, "PUT", object, "user's"), 200) << e.ip;
    EXPECT_EQ(status_of(e, &first, "GET", object), 200) << e.ip;
    EXPECT_EQ(status_of(e, &first, "GET", other + "/x"), 403) << e.ip;
    EXPECT_EQ(status_of(e, &first, "PUT", other + "/y", "no"), 403) << e.ip;
  }
  // The clients now mount the user's keys and check the pool with them.
  ASSERT_TRUE(Eventually(
      [&] {
        return Get({"get", "ds", "-n", ns_->name(), "-o", "yaml"})
                       .find(std::string(kHostMem) + "-s3-user") != std::string::npos &&
               Condition(kHostMem, "Ready") == "True";
      },
      180s))
      << ClientDiagnostics();

  // Rotation: new keys at once, the old ones only through the grace period.
  ASSERT_EQ(env_->Kubectl({"patch", "cprof", kHostMem, "-n", ns_->name(), "--type=merge", "-p",
                           R"({"spec":{"s3User":{"rotation":"2"}}})"})
                .exit_code,
            0);
  ASSERT_TRUE(Eventually([&] { return user_ready(first.access_key_id); }, 60s))
      << ClientDiagnostics();
  const s3::Credentials second = secret_keys();
  EXPECT_NE(second.access_key_id, first.access_key_id);
  EXPECT_FALSE(Field(kHostMem, "{.status.s3User.rotatedAt}").empty());
  for (const SliceEndpoint& e : gateways)
    EXPECT_EQ(status_of(e, &second, "GET", kv + "/from-" + e.ip), 200) << e.ip;
  EXPECT_EQ(status_of(gateways[0], &first, "GET", kv + "/from-" + gateways[0].ip), 200)
      << "the replaced keys work during the grace period";
  ASSERT_TRUE(Eventually(
      [&] {
        for (const SliceEndpoint& e : gateways) {
          if (status_of(e, &first, "GET", kv + "/from-" + e.ip) != 403) return false;
        }
        return true;
      },
      60s))
      << "the replaced keys still work after the grace period" << ClientDiagnostics();

  // The profile goes: its user goes from every gateway; what it wrote stays.
  ASSERT_EQ(
      env_->Kubectl({"delete", "cprof", kHostMem, "-n", ns_->name(), "--timeout=180s"}).exit_code,
      0)
      << ClientDiagnostics();
  for (const SliceEndpoint& e : gateways) {
    EXPECT_EQ(status_of(e, &second, "GET", kv + "/from-" + e.ip), 403) << e.ip;
    auto kept = Client(e).Send({.method = "GET", .path = kv + "/from-" + e.ip});
    ASSERT_TRUE(kept.ok());
    EXPECT_EQ(kept->body, "user's") << e.ip;
  }
}

// During a pool upgrade the clients' endpoints move from the 1.x port to the 2.x one with the
// nodes, and the file they write is there and whole at every moment.
TEST_F(ClientProfileE2eTest, ClientConfigFollowsAPoolUpgrade) {
  if (const std::string missing = FindNodes(); !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  StartWithTheHostMemoryProfileReady("cprof-upgrade");
  if (HasFatalFailure()) return;
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

// Every entry below `dir` with its type and, for files, its bytes: what the host holds there.
std::map<std::string, std::string> HostTree(const std::string& dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const std::string rel = std::filesystem::relative(it->path(), dir).string();
    if (it->is_symlink()) {
      out[rel] = "-> " + std::filesystem::read_symlink(it->path(), ec).string();
    } else if (it->is_regular_file()) {
      out[rel] = ReadFile(it->path().string());
    } else {
      out[rel] = "<dir or special>";
    }
  }
  return out;
}

// A profile's library image is its author's choice, and so is the shell its init container runs:
// one hostile image (tests/fixtures/client/hostile-library-sh), five classes of content, each in
// a profile of its own on one node beside the working host-memory profile. Each is refused with
// a condition and a Warning event naming the offending entries; nothing is written outside its
// directory (nor inside: nothing of it is installed); the other profile stays Ready, its files
// unchanged.
TEST_F(ClientProfileE2eTest, AHostileLibraryImageIsRefusedAndTouchesNothingElse) {
  if (const std::string missing = FindNodes(); !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  StartWithTheHostMemoryProfileReady("cprof-hostile");
  if (HasFatalFailure()) return;
  const std::string node = h100_;
  ASSERT_TRUE(Eventually([&] { return NodeLabel(node, kHostMem) == "ready"; }, 120s))
      << ClientDiagnostics();
  const std::string root = nodes_.at(node).host_root + "/var/lib/rdmastack/client";
  const std::map<std::string, std::string> good_before = HostTree(InstallDir(node, kHostMem));
  ASSERT_TRUE(good_before.count("lib/libcuobjclient.so.1.2.0.68")) << ClientDiagnostics();
  std::set<std::string> dirs_before;
  for (const auto& e : std::filesystem::directory_iterator(root))
    dirs_before.insert(e.path().filename().string());

  // What each class's refusal must name.
  const std::map<std::string, std::vector<std::string>> classes = {
      {"hostile-elf",
       {"its ELF SONAME '../../h1-victim/lib/libcuobjclient.so.1' is not a plain file name",
        "'liblong.so': its ELF SONAME", "250 bytes long",
        "'libneeded.so': its ELF NEEDED entry '../../h1-victim/lib/libcuobjclient.so.1'"}},
      {"hostile-names",
       {"'lib\\x0anewline.so' is not a plain file name", "'.rdmastack-tmp-0123456789abcdef'",
        "'libfifo.so' is a FIFO", "'subdir' is a directory"}},
      {"hostile-links",
       {"'libshadow.so' -> '/host/etc/shadow' leaves the image",
        "'libup.so' -> '../../h1-victim/lib/libcuobjclient.so.1.2.0.68' leaves the image",
        "'libdotdot.so' -> '..' leaves the image", "'libdangling.so' -> 'libmissing.so' names"}},
      {"hostile-modes",
       {"'libsuid.so' has mode 4755", "'libsgid.so' has mode 2755", "'libsticky.so' has mode 1755",
        "'libworld.so' has mode 0666: world-writable"}},
      {"hostile-bytes",
       {"'libsparse.so' is 1 GiB long with 0 bytes allocated, over the per-file budget of 64 MiB",
        "'libprealloc.so' is 1 bytes long with 80 MiB allocated",
        "over the per-image budget of 128 MiB"}},
  };
  // The image's shell picks the class from the library version its command copies.
  const std::map<std::string, std::string> version = {{"hostile-elf", "1.2.0.901"},
                                                      {"hostile-names", "1.2.0.902"},
                                                      {"hostile-links", "1.2.0.903"},
                                                      {"hostile-modes", "1.2.0.904"},
                                                      {"hostile-bytes", "1.2.0.905"}};
  for (const auto& [name, _] : classes) {
    std::ostringstream y;
    y << "apiVersion: rdmastack.io/v1alpha1\nkind: ClientProfile\nmetadata:\n  name: " << name
      << "\nspec:\n  nodeSelector: {kubernetes.io/hostname: " << node << "}\n"
      << "  gatewayPoolRef: {name: kvcache}\n  transport: HostMemory\n  gidIndex: 0\n"
      << "  clientLibrary:\n    version: " << version.at(name) << "\n"
      << "    image: registry.local/rdmastack/libcuobjclient-hostile:1.2.0.68\n";
    ns_->Apply(y.str());
  }
  for (const auto& [name, wanted] : classes) {
    SCOPED_TRACE(name);
    const bool refused =
        Eventually([&] { return Condition(name, "Ready", "reason") == "LibraryRefused"; }, 240s);
    ASSERT_TRUE(refused) << Get({"get", "pods", "-n", ns_->name(), "-o", "wide"})
                         << ClientDiagnostics();
    const std::string message = Condition(name, "Ready", "message");
    EXPECT_EQ(Condition(name, "Degraded"), "True");
    EXPECT_EQ(Condition(name, "Degraded", "reason"), "LibraryRefused");
    EXPECT_NE(message.find("the client on node " + node + " refused clientLibrary.image"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("Nothing from the image is installed"), std::string::npos) << message;
    for (const std::string& w : wanted) EXPECT_NE(message.find(w), std::string::npos) << w;
    const std::string events =
        Get({"get", "events", "-n", ns_->name(), "--field-selector",
             "involvedObject.name=" + name + ",type=Warning,reason=LibraryRefused", "-o",
             "jsonpath={.items[*].message}"});
    EXPECT_NE(events.find(wanted.front()), std::string::npos) << events;
    // Nothing of the image reached the node: its directory holds nothing.
    EXPECT_TRUE(HostTree(InstallDir(node, name)).empty())
        << InstallDir(node, name) << " is not empty";
  }
  // Nothing outside: no new directory beside the profiles' (h1-victim above all), and the
  // working profile's files are as they were, its clients Ready.
  std::set<std::string> dirs_after;
  for (const auto& e : std::filesystem::directory_iterator(root)) {
    const std::string d = e.path().filename().string();
    if (classes.count(d.substr(d.find('.') + 1)) == 0) dirs_after.insert(d);
  }
  EXPECT_EQ(dirs_after, dirs_before);
  EXPECT_FALSE(std::filesystem::exists(root + "/h1-victim"));
  EXPECT_FALSE(std::filesystem::exists(nodes_.at(node).host_root + "/var/lib/rdmastack/h1-victim"));
  const std::map<std::string, std::string> good_after = HostTree(InstallDir(node, kHostMem));
  for (const auto& [path, content] : good_before) {
    if (path == "endpoints.json" || path.rfind("log/", 0) == 0) continue;  // may follow the pool
    const auto now = good_after.find(path);
    ASSERT_NE(now, good_after.end()) << path << " is gone";
    EXPECT_EQ(now->second, content) << path << " changed";
  }
  for (const auto& [path, _] : good_after) {
    EXPECT_EQ(path.find(".rdmastack-tmp-"), std::string::npos) << path;
    EXPECT_TRUE(good_before.count(path) || path.rfind("log/", 0) == 0) << "new: " << path;
  }
  EXPECT_EQ(Condition(kHostMem, "Ready"), "True") << ClientDiagnostics();
  EXPECT_EQ(NodeLabel(node, kHostMem), "ready");
}

// ---- Workload injection: the operator's mutating admission webhook, called by the real API server
// on 127.0.0.1, for pods labelled rdmastack.io/client-profile.

constexpr char kWebhook[] = "inject-clientprofile.rdmastack.io";
constexpr char kMutationAudit[] = "mutation.webhook.admission.k8s.io/round_0_index_0";

class WorkloadE2eTest : public ClientProfileE2eTest {
 protected:
  void TearDown() override {
    if (env_ != nullptr && !configuration_.empty())
      env_->Kubectl(
          {"delete", "mutatingwebhookconfiguration", configuration_, "--ignore-not-found"});
    ClientProfileE2eTest::TearDown();
  }

  // The operator flags of the webhook; the certificate lives 30 s, so it is renewed every 20 s.
  void UseWebhook() {
    webhook_port_ = FreePortOn("127.0.0.1");
    configuration_ = UniqueName("rdmastack-injector");
    extra_webhook_args_ = {"--webhook-bind-address=127.0.0.1:" + std::to_string(webhook_port_),
                           "--webhook-configuration=" + configuration_, "--webhook-host=127.0.0.1",
                           "--webhook-cert-validity=30s"};
  }

  // The configuration the chart installs (charts/rdmastack/templates/webhook.yaml), pointed at
  // 127.0.0.1 and limited to this test's namespace; the operator fills in the caBundle.
  void ApplyConfiguration() {
    std::ostringstream y;
    y << "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\n"
      << "metadata: {name: " << configuration_ << "}\nwebhooks:\n- name: " << kWebhook << "\n"
      << "  admissionReviewVersions: [v1]\n  sideEffects: None\n  failurePolicy: Fail\n"
      << "  reinvocationPolicy: IfNeeded\n  timeoutSeconds: 10\n"
      << "  objectSelector: {matchExpressions: [{key: rdmastack.io/client-profile, operator: "
         "Exists}]}\n"
      << "  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: " << ns_->name()
      << "}}\n"
      << "  rules: [{operations: [CREATE], apiGroups: [''], apiVersions: [v1], resources: [pods], "
         "scope: Namespaced}]\n"
      << "  clientConfig: {url: 'https://127.0.0.1:" << webhook_port_ << "/mutate-pods'}\n";
    CommandResult r = env_->Kubectl({"apply", "-f", "-"}, y.str());
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  std::string CaBundle() const {
    return Get({"get", "mutatingwebhookconfiguration", configuration_, "-o",
                "jsonpath={.webhooks[0].clientConfig.caBundle}"});
  }

  // A pod of the host image: prints its node's transport from the injected config, then writes
  // and reads an object through the first endpoint of its node's endpoints.json.
  std::string AppPod(const std::string& name, const std::string& profile, const std::string& node,
                     bool run) const {
    std::ostringstream y;
    y << "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " << name << "\n  labels:\n";
    if (!profile.empty()) y << "    rdmastack.io/client-profile: " << profile << "\n";
    if (run) y << "    rdmastack.io/simulate: run\n";
    y << "spec:\n  restartPolicy: Never\n";
    if (!node.empty()) y << "  nodeSelector: {kubernetes.io/hostname: " << node << "}\n";
    // No keys: the webhook gives the profile's S3 user keys (the sample's s3User).
    y << "  containers:\n  - name: app\n    image: rdmastack.invalid/host\n"
      << "    command:\n    - /bin/sh\n    - -c\n    - |\n"
      << "      set -e\n"
      << "      echo \"config=$RDMASTACK_CLIENT_CONFIG_DIR\"\n"
      << "      echo \"peer=$(sed -n 's/.*\"rdma_peer_type\": *\"\\([a-z_]*\\)\".*/\\1/p' "
         "\"$CUOBJ_ENV_PATH_JSON\")\"\n"
      << "      ep=$(grep -o 'http://[0-9.]*:[0-9]*' "
         "\"$RDMASTACK_CLIENT_CONFIG_DIR/endpoints.json\" "
         "| head -1)\n"
      << "      s3() { curl -sS --fail-with-body --max-time 10 --aws-sigv4 aws:amz:us-east-1:s3 "
         "--user "
         "\"$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY\" -H 'x-amz-content-sha256: "
         "UNSIGNED-PAYLOAD' "
         "\"$@\"; }\n"
      << "      echo \"hello from $(hostname)\" > /tmp/body\n"
      << "      s3 -X PUT -T /tmp/body \"$ep/smoke/" << name << "\"\n"
      << "      s3 \"$ep/smoke/" << name << "\" | cmp -s - /tmp/body\n"
      << "      echo \"s3 round trip ok via $ep\"\n";
    return y.str();
  }

  CommandResult DryRun(const std::string& pod) const {
    return env_->Kubectl({"create", "--dry-run=server", "-n", ns_->name(), "-o", "json", "-f", "-"},
                         pod);
  }

  // What the webhook decides, from a pod as the API server returns it (namespace masked, the
  // service-account token volume left out: its name is random).
  std::string Injected(const std::string& pod_json) const {
    auto pod = k8s::JsonObject::Parse(pod_json);
    if (!pod.ok()) return "<not JSON: " + pod_json + ">";
    std::ostringstream out;
    for (const char* a : {"clientprofile.rdmastack.io/injected",
                          "clientprofile.rdmastack.io/conflicts", "k8s.v1.cni.cncf.io/networks"})
      out << a << ": " << pod->Annotation(a).value_or("-") << "\n";
    out << "affinity: " << pod->Get({"spec", "affinity"}).value_or(k8s::JsonObject()).Serialize()
        << "\n";
    for (const auto& v : pod->GetArray({"spec", "volumes"}))
      if (v.GetString({"name"}).value_or("").rfind("kube-api-access-", 0) != 0)
        out << "volume: " << v.Serialize() << "\n";
    for (const auto& c : pod->GetArray({"spec", "containers"})) {
      out << "container " << c.GetString({"name"}).value_or("?") << ":\n";
      for (const char* f : {"resources", "securityContext"})
        out << "  " << f << ": " << c.Get({f}).value_or(k8s::JsonObject()).Serialize() << "\n";
      for (const auto& e : c.GetArray({"env"})) out << "  env: " << e.Serialize() << "\n";
      for (const auto& m : c.GetArray({"volumeMounts"}))
        if (m.GetString({"name"}).value_or("").rfind("kube-api-access-", 0) != 0)
          out << "  mount: " << m.Serialize() << "\n";
    }
    std::string text = out.str();
    for (size_t at = text.find(ns_->name()); at != std::string::npos; at = text.find(ns_->name()))
      text.replace(at, ns_->name().size(), "NS");
    return text;
  }

  std::string LiveInjected(const std::string& pod) const {
    return Injected(Get({"get", "pod", pod, "-n", ns_->name(), "-o", "json"}));
  }

  std::vector<AuditedWrite> PodCreates(const std::string& pod) const {
    std::vector<AuditedWrite> out;
    for (const AuditedWrite& w : ReadAuditedWrites()) {
      if (w.verb == "create" && w.resource == "pods" && w.namespace_ == ns_->name() &&
          w.name == pod && w.subresource.empty())
        out.push_back(w);
    }
    return out;
  }

  // The webhook set up as the chart does, the operator with simulated clients (and the webhook),
  // the GPU-direct profile; no pool yet.
  void StartWithWebhook(const std::string& prefix) {
    UseWebhook();
    ns_ = std::make_unique<TestNamespace>(*env_, prefix);
    selector_label_ = "e2e.rdmastack.io/" + ns_->name();
    ApplyAgentServiceAccount(*ns_);
    ApplyConfiguration();
    if (HasFatalFailure()) return;
    extra_operator_args_ = SimulatedClientArgs();
    extra_operator_args_.insert(extra_operator_args_.end(), extra_webhook_args_.begin(),
                                extra_webhook_args_.end());
    hub_port_ = FreePortOn(bridge_);
    StartOperator(prefix);
    ns_->Apply(ReadSample("clientprofile-gpudirect.yaml"));
    ASSERT_TRUE(Eventually([&] { return !CaBundle().empty(); }, 60s))
        << "the operator never set the caBundle\n"
        << operator_->Output();
  }
  // Then the pool, and the GPU-direct profile Ready.
  void StartPoolAndAwaitGpuDirect() {
    StartPool();
    if (HasFatalFailure()) return;
    CommandResult wait =
        env_->Kubectl({"wait", "--for=condition=Ready", std::string("cprof/") + kGpuDirect, "-n",
                       ns_->name(), "--timeout=300s"});
    ASSERT_EQ(wait.exit_code, 0) << wait.err << ClientDiagnostics();
  }

  struct PodOnNode {
    std::string name, image;
    bool ready = false, terminating = false;
  };
  // The profile's pods of one component (client, client-uninstall) on `node`.
  std::vector<PodOnNode> ProfilePods(const std::string& profile, const std::string& component,
                                     const std::string& node) const {
    std::vector<PodOnNode> out;
    auto list =
        k8s::JsonObject::Parse(Get({"get", "pods", "-n", ns_->name(), "-l",
                                    std::string("clientprofile.rdmastack.io/name=") + profile +
                                        ",app.kubernetes.io/component=" + component,
                                    "--field-selector", "spec.nodeName=" + node, "-o", "json"}));
    if (!list.ok()) return out;
    for (const auto& p : list->GetArray({"items"})) {
      PodOnNode pod;
      pod.name = p.GetString({"metadata", "name"}).value_or("");
      pod.image = p.GetString({"spec", "containers", "0", "image"}).value_or("");
      pod.terminating = p.GetString({"metadata", "deletionTimestamp"}).has_value();
      for (const auto& c : p.GetArray({"status", "conditions"}))
        if (c.GetString({"type"}) == "Ready") pod.ready = c.GetString({"status"}) == "True";
      out.push_back(pod);
    }
    return out;
  }
  // The one Ready, not terminating client pod of `profile` on `node`, or an empty name.
  PodOnNode ReadyClient(const std::string& profile, const std::string& node) const {
    for (const PodOnNode& p : ProfilePods(profile, "client", node))
      if (p.ready && !p.terminating) return p;
    return {};
  }

  // A pod that names `profile` and checks its injected configuration every second for as long as
  // it runs: "ok" when endpoints.json, cuobj.json and the library link are there, else "gap ..."
  // with what the directory held.
  std::string ReaderPod(const std::string& name, const std::string& profile,
                        const std::string& node) const {
    std::ostringstream y;
    y << "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " << name << "\n  labels:\n"
      << "    rdmastack.io/client-profile: " << profile << "\n"
      << "    rdmastack.io/simulate: run\n"
      << "spec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 1\n"
      << "  nodeSelector: {kubernetes.io/hostname: " << node << "}\n"
      << "  containers:\n  - name: app\n    image: rdmastack.invalid/host\n"
      << "    command:\n    - /bin/sh\n    - -c\n    - |\n"
      << "      d=\"$RDMASTACK_CLIENT_CONFIG_DIR\"\n"
      << "      while true; do\n"
      << "        if grep -q '\"endpoints\"' \"$d/endpoints.json\" && [ -s \"$d/cuobj.json\" ] && "
         "[ -e \"$d/lib/libcuobjclient.so.1\" ]; then echo ok; else echo \"gap $(date +%s): "
         "$(ls -A \"$d\" 2>&1 | tr '\\n' ' ')\"; fi\n"
      << "        sleep 1\n"
      << "      done\n";
    return y.str();
  }
  // How many checks of the reader said ok, and the lines that did not.
  std::pair<int, std::string> ReaderChecks(const std::string& pod) const {
    std::istringstream log(ns_->Logs(pod).out);
    int ok = 0;
    std::string gaps, line;
    while (std::getline(log, line)) {
      if (line == "ok") {
        ++ok;
      } else {
        gaps += line + "\n";
      }
    }
    return {ok, gaps};
  }

  uint16_t webhook_port_ = 0;
  std::string configuration_;
  std::vector<std::string> extra_webhook_args_;
};

TEST_F(WorkloadE2eTest, LabelledPodsGetTheirNodesRdmaConfigAndReachThePool) {
  if (const std::string missing = FindNodes(); !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  StartWithWebhook("cprof-wl");
  if (HasFatalFailure()) return;
  ns_->Apply(ReadSample("clientprofile-hostmem.yaml"));

  // Refusals, each saying what to do: no such profile; a profile without a workload section; a
  // profile with no Ready node yet (no pool).
  ASSERT_TRUE(
      Eventually([&] { return Condition(kGpuDirect, "Ready", "reason") == "PoolNotFound"; }, 60s))
      << ClientDiagnostics();
  CommandResult missing = DryRun(AppPod("app-x", "nope", "", false));
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find(std::string("admission webhook \"") + kWebhook +
                             "\" denied the request: ClientProfile \"nope\" not found in "
                             "namespace \"" +
                             ns_->name() + "\""),
            std::string::npos)
      << missing.err;
  CommandResult no_workload = DryRun(AppPod("app-x", kHostMem, "", false));
  EXPECT_NE(no_workload.err.find("has no spec.workload"), std::string::npos) << no_workload.err;
  CommandResult no_ready = DryRun(AppPod("app-x", kGpuDirect, "", false));
  EXPECT_NE(no_ready.err.find("ClientProfile " + ns_->name() + "/" + kGpuDirect +
                              " has no node whose client data plane is Ready"),
            std::string::npos)
      << no_ready.err;

  StartPoolAndAwaitGpuDirect();
  if (HasFatalFailure()) return;

  // An unlabelled pod is never sent to the webhook (the API server's audit record of its create
  // has no mutation annotation); a labelled one is, and is mutated.
  ns_->Apply(AppPod("plain", "", h100_, false));
  ns_->Apply(AppPod("app-dmabuf", kGpuDirect, h100_, true));
  ns_->Apply(AppPod("app-peermem", kGpuDirect, a6000_, true));
  ns_->Apply(AppPod("app-far", kGpuDirect, far_, false));
  EXPECT_EQ(
      ns_->PodField("plain", "{.metadata.annotations.clientprofile\\.rdmastack\\.io/injected}"),
      "");
  EXPECT_EQ(ns_->PodField("plain", "{.spec.containers[0].securityContext}"), "");
  ASSERT_TRUE(Eventually([&] { return !PodCreates("app-dmabuf").empty(); }, 20s));
  ASSERT_EQ(PodCreates("plain").size(), 1u);
  EXPECT_EQ(PodCreates("plain")[0].annotations.count(kMutationAudit), 0u);
  const auto labelled = PodCreates("app-dmabuf");
  ASSERT_EQ(labelled.size(), 1u);
  ASSERT_EQ(labelled[0].annotations.count(kMutationAudit), 1u);
  EXPECT_NE(labelled[0].annotations.at(kMutationAudit).find("\"mutated\":true"), std::string::npos)
      << labelled[0].annotations.at(kMutationAudit);

  // The mutated spec, as the API server stored it (and as the unit goldens render it).
  const std::string injected = LiveInjected("app-dmabuf");
  ExpectMatchesGolden("tests/e2e/clientprofile/golden/injected-shared.txt", injected);
  // Applying the same manifest again changes nothing; the same manifest under another name gets
  // the same injection.
  const std::string version = ns_->PodField("app-dmabuf", "{.metadata.resourceVersion}");
  CommandResult again = env_->Kubectl({"apply", "-n", ns_->name(), "-f", "-"},
                                      AppPod("app-dmabuf", kGpuDirect, h100_, true));
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(ns_->PodField("app-dmabuf", "{.metadata.resourceVersion}"), version);
  EXPECT_EQ(LiveInjected("app-dmabuf"), injected);
  CommandResult copy = DryRun(AppPod("app-dmabuf-copy", kGpuDirect, h100_, true));
  ASSERT_EQ(copy.exit_code, 0) << copy.err;
  EXPECT_EQ(Injected(copy.out), injected);

  // Only ready nodes: the cross-socket node is not eligible for GPU-direct, so a pod bound to it
  // cannot be scheduled.
  EXPECT_TRUE(Eventually(
      [&] {
        return ns_->PodField("app-far",
                             "{.status.conditions[?(@.type==\"PodScheduled\")].reason}") ==
               "Unschedulable";
      },
      30s))
      << Get({"get", "pod", "app-far", "-n", ns_->name(), "-o", "yaml"});

  // The application pods run on their nodes, see that node's transport, and reach the pool.
  for (const auto& [pod, peer] : std::vector<std::pair<std::string, std::string>>{
           {"app-dmabuf", "dmabuf"}, {"app-peermem", "nvidia_peermem"}}) {
    ASSERT_TRUE(Eventually(
        [&] { return ns_->Logs(pod).out.find("s3 round trip ok") != std::string::npos; }, 90s))
        << pod << ": " << ns_->Logs(pod).out << ns_->Logs(pod).err
        << Get({"get", "pod", pod, "-n", ns_->name(), "-o", "yaml"});
    const std::string log = ns_->Logs(pod).out;
    EXPECT_NE(log.find("config=/etc/rdmastack/client\n"), std::string::npos) << log;
    EXPECT_NE(log.find("peer=" + peer + "\n"), std::string::npos) << log;
  }

  // The other device modes, as the API server returns them (server-side dry run), after the
  // profile changes; the webhook reads the profile from the operator's cache.
  for (
      const auto& [mode, patch] : std::vector<std::pair<std::string, std::string>>{
          {"sriov",
           R"({"spec":{"workload":{"sharedDevicePlugin":null,"sriov":{"resourceName":"nvidia.com/cx6_vf","networkAttachment":"sriov-rdma"}}}})"},
          {"host", R"({"spec":{"workload":{"sriov":null,"hostDevice":{}}}})"},
          {"shared",
           R"({"spec":{"workload":{"hostDevice":null,"sharedDevicePlugin":{"resourceName":"rdma/hca_shared_devices_a"}}}})"}}) {
    CommandResult p = env_->Kubectl(
        {"patch", "cprof", kGpuDirect, "-n", ns_->name(), "--type=merge", "-p", patch});
    ASSERT_EQ(p.exit_code, 0) << mode << ": " << p.err;
    std::string got;
    ASSERT_TRUE(Eventually(
        [&] {
          CommandResult r = DryRun(AppPod("app-" + mode, kGpuDirect, "", false));
          got = r.exit_code == 0 ? Injected(r.out) : r.err;
          return got.find(mode == "host"    ? "hostDevice"
                          : mode == "sriov" ? "sriov "
                                            : "shared") != std::string::npos;
        },
        20s))
        << mode << ": " << got;
    ExpectMatchesGolden("tests/e2e/clientprofile/golden/injected-" + mode + ".txt", got);
  }

  // Certificate rotation (30 s certificates, renewed after 20 s): labelled pods keep being
  // admitted while the serving certificate changes under them.
  const auto served = [&] {
    return RunCommand({"sh", "-c",
                       "openssl s_client -connect 127.0.0.1:" + std::to_string(webhook_port_) +
                           " </dev/null 2>/dev/null | openssl x509 -noout -fingerprint"})
        .out;
  };
  const std::string first = served();
  ASSERT_NE(first, "");
  int admitted = 0;
  std::string refused;
  const auto rotation_deadline = std::chrono::steady_clock::now() + 45s;
  while (std::chrono::steady_clock::now() < rotation_deadline && served() == first) {
    CommandResult r = DryRun(AppPod("app-rotation", kGpuDirect, "", false));
    if (r.exit_code == 0) {
      ++admitted;
    } else {
      refused += r.err;
    }
  }
  EXPECT_NE(served(), first) << "the webhook never served a renewed certificate";
  for (int i = 0; i < 5; ++i) {
    CommandResult r = DryRun(AppPod("app-rotation", kGpuDirect, "", false));
    if (r.exit_code == 0) {
      ++admitted;
    } else {
      refused += r.err;
    }
  }
  EXPECT_EQ(refused, "");
  EXPECT_GT(admitted, 5);

  // The operator stops: labelled pods are refused with a message naming the webhook; other pods
  // are created as usual.
  operator_.reset();
  CommandResult down = DryRun(AppPod("app-down", kGpuDirect, "", false));
  EXPECT_NE(down.exit_code, 0);
  EXPECT_NE(down.err.find(std::string("failed calling webhook \"") + kWebhook + "\""),
            std::string::npos)
      << down.err;
  CommandResult plain = DryRun(AppPod("plain-down", "", "", false));
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  // Back, so that the profiles' finalizers run at teardown.
  StartOperator("cprof-wl-2");
}

// A running workload keeps its node's configuration while the node's client pod is replaced
// (twice by hand, then by an operator upgrade that changes the client image); when the node leaves
// the profile the files stay until that workload ends, and only then are they removed.
// kubectl rdmastack bench on the demo's GPU-direct profile: a Job whose pod the webhook makes an
// application of the profile measures PUT and GET through real versitygw at three stream counts,
// verifies every object, removes them all, and the Job goes.
TEST_F(WorkloadE2eTest, KubectlRdmastackBenchMeasuresThePoolAsTheProfilesPodsSeeIt) {
  if (const std::string missing = FindNodes(); !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  StartWithWebhook("cprof-bench");
  if (HasFatalFailure()) return;
  StartPoolAndAwaitGpuDirect();
  if (HasFatalFailure()) return;
  const std::vector<SliceEndpoint> gateways = AwaitReadyEndpoints("kvcache", storage_.size());
  ASSERT_FALSE(gateways.empty());
  auto root_get = [&](const std::string& path, s3::KeyValues query = {}) {
    auto r = Client(gateways[0]).Send({.method = "GET", .path = path, .query = std::move(query)});
    return r.ok() ? r->body : "(failed: " + r.status().message() + ")";
  };
  // Bucket names (a bucket's CreationDate is its directory's time, which the bench's writes move).
  auto buckets = [&] {
    const std::string body = root_get("/");
    std::vector<std::string> names;
    for (std::string_view n : s3::XmlElementTexts(body, "Name")) names.emplace_back(n);
    return names;
  };
  const std::vector<std::string> buckets_before = buckets();
  ASSERT_FALSE(buckets_before.empty());

  // The harness's label makes the simulated node run the pod (docs/development.md).
  const CommandResult bench = RunCommand(
      {BinaryDir() + "/bin/kubectl-rdmastack", "--kubeconfig", env_->kubeconfig, "bench",
       kGpuDirect, "-n", ns_->name(), "--size", "1Mi", "--streams", "1,2,4", "--objects-per-stream",
       "2", "--timeout", "3m", "--pod-label", "rdmastack.io/simulate=run"});
  std::printf("%s%s", bench.out.c_str(), bench.err.c_str());
  ASSERT_EQ(bench.exit_code, 0) << bench.out << bench.err << ClientDiagnostics();
  for (const char* row : {"http             1", "http             2", "http             4"}) {
    const size_t at = bench.out.find(row);
    ASSERT_NE(at, std::string::npos) << row << "\n" << bench.out;
    const std::string line = bench.out.substr(at, bench.out.find('\n', at) - at);
    EXPECT_NE(line.find(" verified"), std::string::npos) << line;
    EXPECT_EQ(line.find("FAILED"), std::string::npos) << line;
  }
  EXPECT_NE(bench.out.find("4/4 verified"), std::string::npos) << "2 objects x 2 streams";
  EXPECT_NE(bench.out.find("8/8 verified"), std::string::npos) << "2 objects x 4 streams";
  EXPECT_NE(bench.out.find("cuobject         -         -         -  not available: fake client "
                           "library"),
            std::string::npos)
      << bench.out;
  EXPECT_NE(bench.out.find("nothing left under the prefix"), std::string::npos) << bench.out;

  // What the gateway itself holds: no object under the bench's prefix, no new bucket, no Job.
  const std::string listed =
      root_get("/smoke", {{"list-type", "2"}, {"prefix", ".rdmastack-bench/"}});
  EXPECT_EQ(listed.find("<Key>"), std::string::npos) << listed;
  EXPECT_NE(listed.find("ListBucketResult"), std::string::npos) << listed;
  EXPECT_EQ(buckets(), buckets_before) << "the bench made no bucket and removed none";
  EXPECT_TRUE(Eventually(
      [&] {
        return Get({"get", "jobs,pods", "-n", ns_->name(), "-l",
                    "app.kubernetes.io/name=rdmastack-bench", "-o", "name"})
            .empty();
      },
      60s));
}

TEST_F(WorkloadE2eTest, RunningWorkloadsKeepTheirConfigThroughClientUpdatesAndHoldTheirNode) {
  if (const std::string missing = FindNodes(); !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  StartWithWebhook("cprof-keep");
  if (HasFatalFailure()) return;
  StartPoolAndAwaitGpuDirect();
  if (HasFatalFailure()) return;
  ns_->Apply(ReaderPod("reader", kGpuDirect, h100_));
  ASSERT_TRUE(Eventually([&] { return ReaderChecks("reader").first >= 3; }, 90s))
      << ns_->Logs("reader").out << ns_->Logs("reader").err
      << Get({"get", "pod", "reader", "-n", ns_->name(), "-o", "yaml"});

  // The node's client pod is deleted twice; each time a new one takes over.
  const int checks_before = ReaderChecks("reader").first;
  const auto replacements_start = std::chrono::steady_clock::now();
  for (int round = 0; round < 2; ++round) {
    const PodOnNode before = ReadyClient(kGpuDirect, h100_);
    ASSERT_FALSE(before.name.empty()) << ClientDiagnostics();
    CommandResult del = env_->Kubectl({"delete", "pod", before.name, "-n", ns_->name()});
    ASSERT_EQ(del.exit_code, 0) << del.err;
    ASSERT_TRUE(Eventually(
        [&] {
          const PodOnNode now = ReadyClient(kGpuDirect, h100_);
          return !now.name.empty() && now.name != before.name;
        },
        120s))
        << "round " << round << ": no new Ready client on " << h100_ << ClientDiagnostics();
  }

  // An operator upgrade with another client image: the DaemonSet replaces every node's client.
  constexpr char kRolloutImage[] = "registry.local/rdmastack/client:rollout";
  operator_.reset();
  operator_ = LaunchOperator("cprof-keep-2", {std::string("--client-image=") + kRolloutImage});
  ASSERT_TRUE(Eventually(
      [&] {
        for (const std::string& n : {a6000_, h100_})
          if (ReadyClient(kGpuDirect, n).image != kRolloutImage) return false;
        return true;
      },
      240s))
      << ClientDiagnostics();
  std::this_thread::sleep_for(3s);
  const auto window = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::steady_clock::now() - replacements_start)
                          .count();
  auto [ok, gaps] = ReaderChecks("reader");
  std::printf("reader on %s: %d checks ok in the %lld s of 3 client replacements\n", h100_.c_str(),
              ok - checks_before, static_cast<long long>(window));
  EXPECT_EQ(gaps, "") << "the workload lost its configuration";
  // It kept checking (about once a second) all through the replacements.
  EXPECT_GE(ok - checks_before, window / 2);

  // The node leaves the profile (the selector no longer takes it) while the reader runs: its
  // client goes, the files stay, and the status names the pod that holds them.
  CommandResult narrow = env_->Kubectl(
      {"patch", "cprof", kGpuDirect, "-n", ns_->name(), "--type=merge", "-p",
       R"({"spec":{"nodeSelector":{"kubernetes.io/hostname":")" + a6000_ + R"("}}})"});
  ASSERT_EQ(narrow.exit_code, 0) << narrow.err;
  const std::string retiring = "{.status.retiringNodes[?(@.node==\"" + h100_ + "\")]";
  ASSERT_TRUE(Eventually(
      [&] {
        return Field(kGpuDirect, retiring + ".phase}") == "HeldByPods" &&
               NodeLabel(h100_, kGpuDirect) == "retiring" &&
               ProfilePods(kGpuDirect, "client", h100_).empty();
      },
      120s))
      << ClientDiagnostics();
  EXPECT_EQ(Field(kGpuDirect, retiring + ".pods[*]}"), "reader");
  EXPECT_TRUE(ProfilePods(kGpuDirect, "client-uninstall", h100_).empty());
  std::this_thread::sleep_for(5s);
  EXPECT_TRUE(std::filesystem::exists(InstallDir(h100_, kGpuDirect) + "/cuobj.json"));
  EXPECT_EQ(NodeLabel(h100_, kGpuDirect), "retiring");
  std::tie(ok, gaps) = ReaderChecks("reader");
  EXPECT_EQ(gaps, "") << "the workload lost its configuration while its node was retiring";
  // The other node is untouched.
  EXPECT_EQ(NodeLabel(a6000_, kGpuDirect), "ready");

  // The reader ends: the uninstall pod removes the files, then the label and the pod go.
  CommandResult gone = env_->Kubectl({"delete", "pod", "reader", "-n", ns_->name()});
  ASSERT_EQ(gone.exit_code, 0) << gone.err;
  EXPECT_TRUE(Eventually(
      [&] {
        return NodeLabel(h100_, kGpuDirect).empty() && Uninstalled(h100_, kGpuDirect) &&
               ProfilePods(kGpuDirect, "client-uninstall", h100_).empty() &&
               Field(kGpuDirect, retiring + ".phase}").empty();
      },
      120s))
      << ClientDiagnostics();
  EXPECT_TRUE(std::filesystem::exists(InstallDir(a6000_, kGpuDirect) + "/cuobj.json"));
  // With no node retiring, the uninstall DaemonSet is gone too.
  EXPECT_TRUE(Eventually(
      [&] {
        return Get({"get", "ds", "-n", ns_->name(), "-l",
                    "app.kubernetes.io/component=client-uninstall", "-o", "name"})
            .empty();
      },
      30s))
      << ClientDiagnostics();
}

}  // namespace
}  // namespace rdmastack::testing
