// Passes of the client plane over fixture hosts, with a fake HTTP transport (or a loopback
// server), a fake modprobe and a fake clock.
#include "agents/client/client_plane.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "agents/client/endpoint_check.h"
#include "agents/client/tests/test_util.h"
#include "agents/client/uninstall_pass.h"
#include "base/sha256.h"
#include "node/probe/host_root.h"
#include "node/probe/prober_choice.h"
#include "node/probe/system_probe.h"

namespace rdmastack::client {
namespace {

using testing::EndpointsJson;
using testing::FakeClientLibrary;
using testing::NodeFixture;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

constexpr char kDmaBuf[] = "gpu-client-h100-dmabuf-open-inbox";
constexpr char kA6000[] = "gpu-client-rtxa6000-bar1-256m-peermem-mofed";

// Answers every request with the status set for its endpoint (default 200), recording them.
class FakeTransport : public s3::HttpTransport {
 public:
  StatusOr<s3::HttpResponse> RoundTrip(const s3::Endpoint& endpoint, const s3::HttpRequest& req,
                                       std::chrono::milliseconds) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string url = endpoint.ToString();
    seen_.push_back(url + req.target);
    for (const auto& [k, v] : req.headers) {
      if (k == "authorization") authorization_ = v;
    }
    if (down_.count(url) != 0) return UnavailableError("nothing listening at " + url);
    s3::HttpResponse r;
    r.status = 200;
    if (req.target == "/") r.body = "<ListAllMyBucketsResult/>";
    return r;
  }
  void SetDown(const std::string& url) {
    std::lock_guard<std::mutex> lock(mu_);
    down_.insert(url);
  }
  std::vector<std::string> TakeSeen() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    out.swap(seen_);
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string authorization() {
    std::lock_guard<std::mutex> lock(mu_);
    return authorization_;
  }

 private:
  std::mutex mu_;
  std::set<std::string> down_;
  std::vector<std::string> seen_;
  std::string authorization_;
};

class ClientPlaneTest : public ::testing::Test {
 protected:
  // Options as the operator renders them, over a fixture host.
  RunOptions Options(const std::string& fixture, const std::string& root = "") {
    RunOptions o;
    o.profile = "ml/gpudirect";
    o.node = "gpu-node-0";
    o.root = root.empty() ? NodeFixture(fixture) + "/root" : root;
    o.ips_file = NodeFixture(fixture) + "/ips.txt";
    o.probes_file = NodeFixture(fixture) + "/probes.txt";
    o.requirements.role = node::Role::kClient;
    o.requirements.max_transfer_bytes = 192LL << 20;
    o.modprobe_command = {"chroot", o.root, "modprobe", "nvidia_peermem"};
    o.endpoints_file = tmp_ / "endpoints/endpoints.json";
    o.install_dir = tmp_ / "install";
    o.host_install_dir = "/var/lib/rdmastack/clients/ml.gpudirect";
    o.library_dir = tmp_ / "cuobjclient";
    o.state_dir = tmp_ / "state";
    return o;
  }

  std::unique_ptr<ClientPlane> Plane(const RunOptions& o,
                                     const std::function<void(PlaneDeps&)>& adjust = {}) {
    PlaneDeps deps;
    deps.make_prober = [o] { return node::MakeProber(o.root, o.probes_file, false); };
    deps.http = &http_;
    deps.clock = &clock_;
    deps.run_command = [this](const std::vector<std::string>& argv, std::chrono::milliseconds) {
      commands_.push_back(argv);
      return modprobe_(argv);
    };
    if (adjust) adjust(deps);
    return std::make_unique<ClientPlane>(o, deps);
  }

  void SetEndpoints(const std::string& json) { WriteFile(tmp_ / "endpoints/endpoints.json", json); }
  std::string Installed(const std::string& name) { return ReadFile(tmp_ / ("install/" + name)); }
  ClientState StateOnDisk() {
    auto s = ParseStateJson(ReadFile(tmp_ / "state/state.json"));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : ClientState{};
  }

  TempDir tmp_;
  FakeTransport http_;
  FakeClock clock_;
  std::vector<std::vector<std::string>> commands_;
  std::function<StatusOr<node::CapturedOutput>(const std::vector<std::string>&)> modprobe_ =
      [](const std::vector<std::string>&) { return node::CapturedOutput{}; };
};

// An https pool: the check goes through a transport that trusts the pool's CA, and the CA is
// installed for applications.
TEST_F(ClientPlaneTest, AnHttpsPoolIsCheckedAgainstItsCaAndTheCaIsInstalled) {
  fs::create_directories(tmp_ / "cuobjclient");
  fs::copy_file(FakeClientLibrary(), tmp_ / "cuobjclient/libcuobjclient.so.1.2.0.68");
  const std::string ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  SetEndpoints(R"({"pool":"ml/kvcache","scheme":"https","caBundle":")" +
               std::string("-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n") +
               R"(","endpoints":[{"node":"stg-node-0","address":"198.18.0.10","s3Port":7071}]})");
  std::vector<s3::TlsOptions> asked;
  auto plane = Plane(Options(kDmaBuf), [&](PlaneDeps& deps) {
    deps.http = nullptr;  // plain HTTP is never used for an https pool
    deps.https = [&](const s3::TlsOptions& tls) -> s3::HttpTransport* {
      asked.push_back(tls);
      return &http_;
    };
  });
  const ClientState st = plane->RunPass();
  EXPECT_TRUE(st.ready) << st.message;
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].ca_pem, ca);
  EXPECT_EQ(http_.TakeSeen(), std::vector<std::string>{"https://198.18.0.10:7071/_/health"});
  EXPECT_EQ(Installed("ca-bundle.pem"), ca);
  EXPECT_NE(Installed("client.env")
                .find("AWS_CA_BUNDLE=/var/lib/rdmastack/clients/ml.gpudirect/"
                      "ca-bundle.pem\n"),
            std::string::npos);
}

TEST_F(ClientPlaneTest, ReadyNodeInstallsTheConfigurationAndReportsIt) {
  fs::create_directories(tmp_ / "cuobjclient");
  fs::copy_file(FakeClientLibrary(), tmp_ / "cuobjclient/libcuobjclient.so.1.2.0.68");
  SetEndpoints(EndpointsJson(7071, "198.18.0.10"));
  auto plane = Plane(Options(kDmaBuf));
  const ClientState st = plane->RunPass();
  EXPECT_TRUE(st.ready) << st.message;
  EXPECT_EQ(st.reason, "Ready");
  EXPECT_EQ(st.transport, "GPUDirect");
  EXPECT_EQ(st.memory_registration, "DMABuf");
  EXPECT_EQ(st.rdma_device, "ibp25s0");
  EXPECT_EQ(st.gid_index, 0);
  EXPECT_EQ(st.endpoints, 1);
  EXPECT_EQ(st.reachable, 1);
  EXPECT_EQ(st.profile, "ml/gpudirect");
  EXPECT_EQ(st.node, "gpu-node-0");
  EXPECT_EQ(st.updated, std::chrono::time_point_cast<std::chrono::seconds>(clock_.WallNow()));
  EXPECT_EQ(StateOnDisk(), st);
  // Without keys only the health path is asked.
  EXPECT_EQ(http_.TakeSeen(), std::vector<std::string>{"http://198.18.0.10:7071/_/health"});

  EXPECT_NE(Installed("cufile.json").find("\"rdma_peer_type\": \"dmabuf\""), std::string::npos);
  EXPECT_EQ(Installed("cufile.json"), Installed("cuobj.json"));
  EXPECT_NE(Installed("client.env").find("AWS_ENDPOINT_URL=http://198.18.0.10:7071\n"),
            std::string::npos);
  EXPECT_NE(
      Installed("client.env").find("LD_LIBRARY_PATH=/var/lib/rdmastack/clients/ml.gpudirect/lib\n"),
      std::string::npos);
  EXPECT_NE(Installed("endpoints.json").find("\"http://198.18.0.10:7071\""), std::string::npos);
  EXPECT_TRUE(fs::is_symlink(tmp_.path() / "install/lib/libcuobjclient.so.1"));
  EXPECT_TRUE(fs::is_directory(tmp_.path() / "install/log"));
}

// A library image whose file is not the pinned bytes installs no library, says why in the state
// (LibraryDigestMismatch, both digests) and is not Ready; the pinned bytes install as before.
TEST_F(ClientPlaneTest, ALibraryOfOtherBytesIsRefusedBeforeAnythingOfItIsInstalled) {
  fs::create_directories(tmp_ / "cuobjclient");
  WriteFile(tmp_ / "cuobjclient/libcuobjclient.so.1.2.0.68", ReadFile(FakeClientLibrary()) + "!");
  SetEndpoints(EndpointsJson(7071, "198.18.0.10"));
  RunOptions o = Options(kDmaBuf);
  const std::string pinned = Sha256Hex(ReadFile(FakeClientLibrary()));
  o.library_sha256 = {{"libcuobjclient.so.1.2.0.68", pinned}};
  auto plane = Plane(o);
  ClientState st = plane->RunPass();
  EXPECT_FALSE(st.ready);
  EXPECT_EQ(st.reason, "LibraryDigestMismatch");
  EXPECT_NE(st.message.find("expects " + pinned), std::string::npos) << st.message;
  EXPECT_EQ(StateOnDisk().reason, "LibraryDigestMismatch");
  EXPECT_FALSE(fs::exists(tmp_.path() / "install/lib/libcuobjclient.so.1.2.0.68"));

  fs::copy_file(FakeClientLibrary(), tmp_ / "cuobjclient/libcuobjclient.so.1.2.0.68",
                fs::copy_options::overwrite_existing);
  st = plane->RunPass();
  EXPECT_TRUE(st.ready) << st.message;
  EXPECT_EQ(ReadFile(tmp_ / "install/lib/libcuobjclient.so.1.2.0.68"),
            ReadFile(FakeClientLibrary()));
}

TEST_F(ClientPlaneTest, WithKeysTheReadinessCheckIsASignedListBuckets) {
  SetEndpoints(EndpointsJson(7071, "198.18.0.10"));
  WriteFile(tmp_ / "keys/accessKeyId", "AKIDCLIENT\n");
  WriteFile(tmp_ / "keys/secretAccessKey", "secret\n");
  RunOptions o = Options(kDmaBuf);
  o.credentials_dir = tmp_ / "keys";
  const ClientState st = Plane(o)->RunPass();
  EXPECT_TRUE(st.ready) << st.message;
  EXPECT_EQ(http_.TakeSeen(), (std::vector<std::string>{"http://198.18.0.10:7071/",
                                                        "http://198.18.0.10:7071/_/health"}));
  EXPECT_EQ(http_.authorization().rfind("AWS4-HMAC-SHA256 Credential=AKIDCLIENT/", 0), 0u)
      << http_.authorization();
  EXPECT_NE(http_.authorization().find("/us-east-1/s3/aws4_request"), std::string::npos);

  fs::remove(tmp_.path() / "keys/secretAccessKey");
  const ClientState no_keys = Plane(o)->RunPass();
  EXPECT_FALSE(no_keys.ready);
  EXPECT_EQ(no_keys.reason, "EndpointsUnreachable");
  EXPECT_NE(no_keys.message.find("secretAccessKey"), std::string::npos) << no_keys.message;
}

TEST_F(ClientPlaneTest, FilesKeepTheirContentWhenTheEndpointsGoAway) {
  SetEndpoints(EndpointsJson(7071, "198.18.0.10"));
  auto plane = Plane(Options(kDmaBuf));
  ASSERT_TRUE(plane->RunPass().ready);
  const std::string env = Installed("client.env");
  const std::string endpoints = Installed("endpoints.json");
  const std::string cufile = Installed("cufile.json");

  // The operator moves every endpoint away for a moment (an upgrade's switch).
  SetEndpoints(R"({"pool":"ml/kvcache","region":"us-east-1","endpoints":[]})");
  ClientState st = plane->RunPass();
  EXPECT_FALSE(st.ready);
  EXPECT_EQ(st.reason, "NoEndpoints");
  EXPECT_EQ(st.endpoints, 0);
  EXPECT_EQ(st.transport, "GPUDirect");  // the node is still capable
  EXPECT_EQ(Installed("client.env"), env);
  EXPECT_EQ(Installed("endpoints.json"), endpoints);
  EXPECT_EQ(Installed("cufile.json"), cufile);

  SetEndpoints("{\"endpoints\":[{\"address\":\"198.18.0.10\"}]}");
  st = plane->RunPass();
  EXPECT_EQ(st.reason, "EndpointsFileInvalid");
  EXPECT_NE(st.message.find("endpoints[0].s3Port"), std::string::npos) << st.message;
  EXPECT_EQ(Installed("client.env"), env);

  fs::remove(tmp_.path() / "endpoints/endpoints.json");
  st = plane->RunPass();
  EXPECT_EQ(st.reason, "EndpointsFileInvalid");
  EXPECT_NE(st.message.find("not found"), std::string::npos) << st.message;
  EXPECT_EQ(Installed("endpoints.json"), endpoints);

  // A new endpoint list is written through.
  SetEndpoints(EndpointsJson(7072, "198.18.0.12"));
  st = plane->RunPass();
  EXPECT_TRUE(st.ready) << st.message;
  EXPECT_NE(Installed("client.env").find("AWS_ENDPOINT_URL=http://198.18.0.12:7072\n"),
            std::string::npos);
  EXPECT_EQ(Installed("cufile.json"), cufile);
}

TEST_F(ClientPlaneTest, NothingAnsweringIsEndpointsUnreachable) {
  SetEndpoints(EndpointsJson(7071, "198.18.0.10"));
  http_.SetDown("http://198.18.0.10:7071");
  const ClientState st = Plane(Options(kDmaBuf))->RunPass();
  EXPECT_FALSE(st.ready);
  EXPECT_EQ(st.reason, "EndpointsUnreachable");
  EXPECT_EQ(st.reachable, 0);
  EXPECT_EQ(st.message,
            "none of 1 endpoints checked answers; nothing listening at http://198.18.0.10:7071");
  // Installed all the same: the node is configured, the pool is what is missing.
  EXPECT_TRUE(fs::exists(tmp_.path() / "install/client.env"));
}

TEST_F(ClientPlaneTest, LargePoolsAreCheckedAFewAtATimeInTurn) {
  std::string json = R"({"pool":"ml/kvcache","endpoints":[)";
  for (int i = 0; i < 10; ++i) {
    json += std::string(i ? "," : "") + R"({"address":"198.18.0.)" + std::to_string(10 + i) +
            R"(","s3Port":7071})";
  }
  SetEndpoints(json + "]}");
  for (int i = 0; i < 2; ++i) http_.SetDown("http://198.18.0." + std::to_string(10 + i) + ":7071");
  auto plane = Plane(Options(kDmaBuf));
  ClientState st = plane->RunPass();
  EXPECT_EQ(st.endpoints, 10);
  EXPECT_EQ(st.reachable, 1);  // .12 answers; .13 and on wait for the next pass
  EXPECT_EQ(st.message,
            "GPUDirect via DMABuf on ibp25s0 GID 0; 1 of 3 endpoints checked answer (the pool has "
            "10), e.g. http://198.18.0.12:7071");
  EXPECT_EQ(http_.TakeSeen().size(), kMaxEndpointsPerPass);
  st = plane->RunPass();
  EXPECT_EQ(st.reachable, 3);  // .13, .14, .15
  const std::vector<std::string> second = http_.TakeSeen();
  EXPECT_EQ(second.size(), kMaxEndpointsPerPass);
  EXPECT_NE(std::find(second.begin(), second.end(), "http://198.18.0.15:7071/_/health"),
            second.end());
  EXPECT_EQ(std::find(second.begin(), second.end(), "http://198.18.0.12:7071/_/health"),
            second.end());
}

TEST_F(ClientPlaneTest, NodeNotCapableCarriesTheAgentsReasonAndInstallsNothing) {
  SetEndpoints(EndpointsJson(7071, "198.18.0.10"));
  RunOptions o = Options(kA6000);
  o.requirements.transport = node::Transport::kGpuDirect;
  o.requirements.max_transfer_bytes = 224LL << 20;
  const ClientState st = Plane(o)->RunPass();
  EXPECT_FALSE(st.ready);
  EXPECT_EQ(st.reason, "NodeNotCapable");
  EXPECT_EQ(st.message.rfind("GPUDirect: Bar1TooSmall: gpu.bar1: ", 0), 0u) << st.message;
  EXPECT_EQ(st.transport, "");
  EXPECT_TRUE(http_.TakeSeen().empty());
  EXPECT_FALSE(fs::exists(tmp_.path() / "install"));
  EXPECT_TRUE(StateOnDisk().message == st.message);

  const ClientState no_rdma = Plane(Options("node-without-rdma"))->RunPass();
  EXPECT_EQ(no_rdma.reason, "NodeNotCapable");
  EXPECT_EQ(no_rdma.message.rfind("HostMemory: NoRdmaDevice: rdma.devices: ", 0), 0u)
      << no_rdma.message;
}

TEST_F(ClientPlaneTest, UninstallPassLeavesNothingBehindAndSaysSo) {
  fs::create_directories(tmp_ / "cuobjclient");
  fs::copy_file(FakeClientLibrary(), tmp_ / "cuobjclient/libcuobjclient.so.1.2.0.68");
  SetEndpoints(EndpointsJson(7071, "198.18.0.10"));
  auto plane = Plane(Options(kDmaBuf));
  ASSERT_TRUE(plane->RunPass().ready);
  WriteFile(tmp_ / "install/log/cufile.log", "written by an application\n");
  Installer installer(tmp_ / "install");
  const auto now = std::chrono::system_clock::now();
  const ClientState st = UninstallPass(installer, now);
  EXPECT_TRUE(st.ready);
  EXPECT_EQ(st.reason, "Uninstalled");
  EXPECT_EQ(st.updated, now);
  EXPECT_NE(st.message.find(" removed in this pass"), std::string::npos) << st.message;
  EXPECT_FALSE(fs::exists(tmp_.path() / "install"));
  // Again: nothing left to remove, still ready.
  const ClientState again = UninstallPass(installer, now);
  EXPECT_TRUE(again.ready);
  EXPECT_NE(again.message.find("(0 removed in this pass)"), std::string::npos) << again.message;
  // What it did not install stays: the library source and the endpoints file.
  EXPECT_TRUE(fs::exists(tmp_.path() / "cuobjclient/libcuobjclient.so.1.2.0.68"));
  EXPECT_TRUE(fs::exists(tmp_.path() / "endpoints/endpoints.json"));
}

// The A6000 host with nvidia_peermem installed for its kernel but not loaded; the fake modprobe
// "loads" it by putting its line back into proc/modules.
class PeerMemTest : public ClientPlaneTest {
 protected:
  void SetUp() override {
    root_ = tmp_ / "root";
    fs::copy(NodeFixture(kA6000) + "/root", root_,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    const std::string modules = ReadFile(root_ + "/proc/modules");
    const size_t line_end = modules.find('\n');
    peermem_line_ = modules.substr(0, line_end + 1);
    ASSERT_EQ(peermem_line_.rfind("nvidia_peermem ", 0), 0u) << peermem_line_;
    WriteFile(root_ + "/proc/modules", modules.substr(line_end + 1));
    WriteFile(root_ + "/lib/modules/5.15.0-105-generic/modules.dep",
              "kernel/drivers/infiniband/core/ib_core.ko:\n"
              "updates/dkms/nvidia-peermem.ko.zst: updates/dkms/nvidia.ko.zst "
              "kernel/drivers/infiniband/core/ib_core.ko\n");
    SetEndpoints(EndpointsJson(7071, "198.18.0.10"));
    modprobe_ = [this](const std::vector<std::string>&) -> StatusOr<node::CapturedOutput> {
      if (!loads_) return UnavailableError("modprobe exited 1: Unknown symbol in module");
      WriteFile(root_ + "/proc/modules", peermem_line_ + ReadFile(root_ + "/proc/modules"));
      return node::CapturedOutput{};
    };
  }
  RunOptions PeerMemOptions(bool allowed) {
    RunOptions o = Options(kA6000, root_);
    o.requirements.transport = node::Transport::kGpuDirect;
    o.load_peermem = allowed;
    return o;
  }

  std::string root_;
  std::string peermem_line_;
  bool loads_ = true;
};

TEST_F(PeerMemTest, TheFixtureTreeSaysInstalledButNotLoaded) {
  node::HostRoot root(root_);
  std::vector<node::ProbeIssue> issues;
  const node::KernelFacts kernel = node::ProbeKernel(root, &issues);
  const node::DriverFacts drivers = node::ProbeDrivers(root, &issues);
  EXPECT_FALSE(drivers.Loaded("nvidia_peermem"));
  EXPECT_EQ(node::ProbeModuleInstalled(root, kernel, drivers, "nvidia_peermem", &issues),
            node::Tristate::kYes);
  EXPECT_EQ(node::ProbeModuleInstalled(root, kernel, drivers, "nvidia_fs", &issues),
            node::Tristate::kNo);
  fs::remove_all(root_ + "/lib/modules");
  EXPECT_EQ(node::ProbeModuleInstalled(root, kernel, drivers, "nvidia_peermem", &issues),
            node::Tristate::kUnknown);
  EXPECT_TRUE(issues.empty());
}

TEST_F(PeerMemTest, LoadsItOnceWhenAllowedAndUsesIt) {
  auto plane = Plane(PeerMemOptions(true));
  ClientState st = plane->RunPass();
  ASSERT_EQ(commands_.size(), 1u);
  EXPECT_EQ(commands_[0],
            (std::vector<std::string>{"chroot", root_, "modprobe", "nvidia_peermem"}));
  EXPECT_TRUE(st.ready) << st.message;
  EXPECT_EQ(st.transport, "GPUDirect");
  EXPECT_EQ(st.memory_registration, "PeerMem");
  EXPECT_TRUE(st.peermem_loaded_by_client);
  EXPECT_NE(Installed("cufile.json").find("\"rdma_peer_type\": \"nvidia_peermem\""),
            std::string::npos);
  EXPECT_NE(Installed("client.env").find("CUFILE_DMABUF_ENABLE=FALSE\n"), std::string::npos);
  st = plane->RunPass();
  EXPECT_EQ(commands_.size(), 1u);  // loaded now: nothing more to run
  EXPECT_TRUE(st.peermem_loaded_by_client);
}

TEST_F(PeerMemTest, WithoutPermissionItRunsNothing) {
  auto plane = Plane(PeerMemOptions(false));
  const ClientState st = plane->RunPass();
  plane->RunPass();
  EXPECT_TRUE(commands_.empty());
  EXPECT_FALSE(st.ready);
  EXPECT_EQ(st.reason, "NodeNotCapable");
  EXPECT_EQ(st.message.rfind("GPUDirect: PeerMemNotLoaded: ", 0), 0u) << st.message;
  EXPECT_FALSE(st.peermem_loaded_by_client);
}

TEST_F(PeerMemTest, NotInstalledForTheRunningKernelRunsNothing) {
  fs::remove_all(root_ + "/lib/modules");
  WriteFile(root_ + "/lib/modules/5.15.0-105-generic/modules.dep",
            "kernel/drivers/infiniband/core/ib_core.ko:\n");
  const ClientState st = Plane(PeerMemOptions(true))->RunPass();
  EXPECT_TRUE(commands_.empty());
  EXPECT_EQ(st.reason, "NodeNotCapable");
}

TEST_F(PeerMemTest, AFailedLoadIsRetriedAfterTheDelayNotEveryPass) {
  loads_ = false;
  auto plane = Plane(PeerMemOptions(true));
  EXPECT_EQ(plane->RunPass().reason, "NodeNotCapable");
  EXPECT_EQ(commands_.size(), 1u);
  clock_.Advance(std::chrono::seconds(30));
  plane->RunPass();
  EXPECT_EQ(commands_.size(), 1u);
  loads_ = true;
  clock_.Advance(kModprobeRetryDelay);
  const ClientState st = plane->RunPass();
  EXPECT_EQ(commands_.size(), 2u);
  EXPECT_TRUE(st.ready) << st.message;
  EXPECT_TRUE(st.peermem_loaded_by_client);
}

}  // namespace
}  // namespace rdmastack::client
