// DRA ResourceSlices from real agent reports (the agent's probe, checks and report builder over
// the HGX fixture), written to the real API server, and allocated by the real kube-scheduler: a
// claim that asks for one GPU and one rdmastack NIC on the same resource.kubernetes.io/pcieRoot
// gets that GPU's own NIC. The GPUs come from a test driver's slice made from the same report (a
// stand-in for the GPU driver's, which cannot run here). Writes counted from the audit log.
#include <gtest/gtest.h>

#include <iostream>
#include <thread>

#include "controllers/rdmanode/rdmanode_status.h"
#include "controllers/rdmanode/resource_slice.h"
#include "controllers/rdmanode/testing/fixture_reports.h"
#include "tests/harness/audit_log.h"
#include "tests/integration/rdmanode/node_controllers_run.h"

namespace rdmastack::rdmanode::integration {
namespace {

using namespace std::chrono_literals;
using ::rdmastack::testing::ClusterEnv;
using ::rdmastack::testing::Eventually;

constexpr char kHgx[] = "gpu-client-hgx-h100-8gpu-8nic";
constexpr char kGpuDriver[] = "gpu.test.rdmastack.io";

agenthub::AgentIdentity Id(const std::string& node) {
  agenthub::AgentIdentity id;
  id.node_name = node;
  id.agent_version = "0.1.0";
  return id;
}

class ResourceSliceIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = ::rdmastack::testing::GetClusterEnv();
    if (env_ == nullptr) return;
    RequireCrds(*env_);
    node_ = ::rdmastack::testing::UniqueName("dra-it");
    // A kwok node (kwok keeps it Ready and runs nothing), which the scheduler can pick.
    ASSERT_EQ(
        Kubectl({"apply", "-f", "-"}, "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + node_ +
                                          "\n  annotations: {kwok.x-k8s.io/node: fake}\n"
                                          "  labels: {rdmastack.io/dra-it: " +
                                          node_ + "}\n"),
        0);
    ASSERT_EQ(Kubectl({"patch", "node", node_, "--subresource=status", "--type=merge", "-p",
                       R"({"status":{"capacity":{"cpu":"8","memory":"32Gi","pods":"110"},)"
                       R"("allocatable":{"cpu":"8","memory":"32Gi","pods":"110"}}})"}),
              0);
  }
  void TearDown() override {
    if (env_ == nullptr) return;
    if (!ns_.empty()) (void)env_->Kubectl({"delete", "namespace", ns_, "--wait=false"});
    (void)env_->Kubectl({"delete", "resourceslice", GpuSliceName(), "--ignore-not-found"});
    (void)env_->Kubectl({"delete", "node", node_, "--ignore-not-found", "--wait=false"});
  }

  int Kubectl(std::vector<std::string> args, const std::string& in = "") const {
    auto r = env_->Kubectl(std::move(args), in);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code;
  }
  std::string Get(const std::string& kind, const std::string& name, const std::string& path,
                  const std::string& ns = "") const {
    std::vector<std::string> args{"get", kind, name, "-o", "jsonpath=" + path};
    if (!ns.empty()) args.insert(args.begin(), {"-n", ns});
    auto r = env_->Kubectl(args);
    return r.exit_code == 0 ? r.out : "";
  }
  std::string SliceName() const { return ResourceSliceName(node_, kDraDriverName); }
  // The names of the slice's devices, "" while there is no slice.
  std::string Devices() const {
    return Get("resourceslice", SliceName(), "{.spec.devices[*].name}");
  }
  std::string GpuSliceName() const { return node_ + "-gpus"; }

  void Report(NodeControllersRun& run, const agent::v1::NodeReport& report) {
    run.agents().OnAgentConnected(Id(node_));
    run.agents().OnReport(Id(node_), report);
  }
  // The node controllers with ResourceSlices on (`options` otherwise), and the test node's agent
  // reporting the HGX fixture (report_) once the node is in their cache.
  std::unique_ptr<NodeControllersRun> StartWithHgxReport(const std::string& name,
                                                         Clock::Duration stale_ttl,
                                                         NodeControllerOptions options = {}) {
    options.dra_driver = kDraDriverName;
    auto run = std::make_unique<NodeControllersRun>(*env_, name, stale_ttl, std::move(options));
    EXPECT_TRUE(Eventually([&] { return !Get("node", node_, "{.metadata.uid}").empty(); }, 10s));
    std::this_thread::sleep_for(1s);
    report_ = testing::FixtureReport(kHgx, testing::ClientRequirements("ml/train"), node_);
    Report(*run, report_);
    return run;
  }

  // Writes to our slice through the run's user agent (the audit log), by verb.
  std::map<std::string, int> SliceWrites(const NodeControllersRun& run) const {
    std::map<std::string, int> out;
    for (const auto& w : ::rdmastack::testing::WritesByAgent(
             ::rdmastack::testing::ReadAuditedWrites(), run.user_agent())) {
      if (w.resource == "resourceslices" && w.name == SliceName() && w.code < 300) ++out[w.verb];
    }
    return out;
  }

  const ClusterEnv* env_ = nullptr;
  std::string node_;
  std::string ns_;
  agent::v1::NodeReport report_;
};

TEST_F(ResourceSliceIntegrationTest, TheSchedulerAllocatesAGpuWithTheNicOnItsRoot) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  auto run = StartWithHgxReport("dra-it", 60s);
  ASSERT_TRUE(
      Eventually([&] { return !Get("resourceslice", SliceName(), "{.spec}").empty(); }, 60s))
      << Get("rdmanode", node_, "{.status.conditions}");
  EXPECT_EQ(Get("resourceslice", SliceName(), "{.metadata.ownerReferences[0].uid}"),
            Get("node", node_, "{.metadata.uid}"));

  // The chart's DeviceClass, as helm renders it with dra.enabled; and the test GPU driver's.
  const char* helm = std::getenv("RDMASTACK_HELM");
  ASSERT_NE(helm, nullptr) << "RDMASTACK_HELM (scripts/cluster.sh env) names the helm binary";
  auto rendered = ::rdmastack::testing::RunCommand(
      {helm, "template", "rdmastack", ::rdmastack::testing::SourcePath("charts/rdmastack"),
       "--show-only", "templates/dra-deviceclass.yaml", "--set", "dra.enabled=true"});
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
  ASSERT_EQ(Kubectl({"apply", "-f", "-"}, rendered.out), 0);
  ASSERT_EQ(Kubectl({"apply", "-f", "-"}, std::string(R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: )") + kGpuDriver + R"(}
spec:
  selectors: [{cel: {expression: 'device.driver == ")" +
                                              kGpuDriver + R"("'}}]
)"),
            0);
  // One device per GPU of the report, with its root as the GPU driver publishes it.
  crd::RdmaNodeStatus status;
  FillFacts(report_, &status);
  ASSERT_EQ(status.gpus.size(), 8u);
  std::string gpus;
  for (size_t i = 0; i < status.gpus.size(); ++i) {
    gpus += "  - name: gpu-" + std::to_string(i) +
            "\n    attributes:\n      index: {int: " + std::to_string(i) +
            "}\n      resource.kubernetes.io/pcieRoot: {string: \"" +
            status.gpus[i].pcie_root.value_or("") + "\"}\n";
  }
  ASSERT_EQ(Kubectl({"apply", "-f", "-"},
                    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " +
                        GpuSliceName() + "}\nspec:\n  driver: " + kGpuDriver +
                        "\n  nodeName: " + node_ + "\n  pool: {name: " + node_ +
                        ", generation: 1, resourceSliceCount: 1}\n  devices:\n" + gpus),
            0);

  // A pod that asks for GPU 5 and an rdmastack NIC on its root complex.
  constexpr size_t kGpu = 5;
  ns_ = ::rdmastack::testing::UniqueName("dra-it");
  ASSERT_EQ(Kubectl({"create", "namespace", ns_}), 0);
  // The pod is admitted once the namespace has its default ServiceAccount.
  ASSERT_TRUE(Eventually(
      [&] { return !Get("serviceaccount", "default", "{.metadata.uid}", ns_).empty(); }, 30s));
  ASSERT_EQ(Kubectl({"apply", "-n", ns_, "-f", "-"}, std::string(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: pair}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: )") + kGpuDriver + R"(
        selectors: [{cel: {expression: 'device.attributes[")" +
                                                         kGpuDriver + R"("].index == )" +
                                                         std::to_string(kGpu) +
                                                         R"('}}]
    - name: nic
      exactly: {deviceClassName: rdma.rdmastack.io}
    constraints:
    - requests: [gpu, nic]
      matchAttribute: resource.kubernetes.io/pcieRoot
---
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  nodeSelector: {rdmastack.io/dra-it: )" + node_ + R"(}
  tolerations: [{operator: Exists}]
  resourceClaims: [{name: pair, resourceClaimName: pair}]
  containers:
  - name: main
    image: registry.invalid/trainer:1
    resources: {claims: [{name: pair}]}
)"),
            0);
  ASSERT_TRUE(
      Eventually([&] { return Get("pod", "trainer", "{.spec.nodeName}", ns_) == node_; }, 60s))
      << Get("pod", "trainer", "{.status}", ns_);
  const std::string nic =
      Get("resourceclaim", "pair",
          R"({.status.allocation.devices.results[?(@.request=="nic")].device})", ns_);
  EXPECT_EQ(nic, DraDeviceName(status.gpus[kGpu].nearest_nic.value_or(""), 1))
      << Get("resourceclaim", "pair", "{.status}", ns_);
  EXPECT_EQ(Get("resourceclaim", "pair",
                R"({.status.allocation.devices.results[?(@.request=="gpu")].device})", ns_),
            "gpu-" + std::to_string(kGpu));
  // What docs/operator.md shows.
  std::cout
      << env->Kubectl({"get", "resourceslices", "--field-selector", "spec.nodeName=" + node_}).out
      << env->Kubectl({"get", "resourceclaim", "pair", "-n", ns_}).out
      << Get("resourceclaim", "pair",
             R"({range .status.allocation.devices.results[*]}{.request} {.driver} {.device}{"\n"}{end})",
             ns_)
      << Get("resourceslice", SliceName(), R"({.spec.devices[?(@.name=="mlx5-9-p1")].attributes})")
      << "\n";
}

// The slice is written once; the same facts resent write nothing; a port going down takes its
// device out in one more write (the pool's generation up by one).
TEST_F(ResourceSliceIntegrationTest, ASliceIsWrittenOnlyWhenItsDevicesChange) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  auto run = StartWithHgxReport("dra-writes", 60s);
  ASSERT_TRUE(Eventually([&] { return !Devices().empty(); }, 60s));
  EXPECT_NE(Devices().find("mlx5-5-p1"), std::string::npos) << Devices();
  std::this_thread::sleep_for(2s);
  EXPECT_EQ(SliceWrites(*run), (std::map<std::string, int>{{"patch", 1}}));

  // The agent reconnects and resends the same report: nothing is written.
  run->agents().OnAgentDisconnected(Id(node_));
  Report(*run, report_);
  std::this_thread::sleep_for(3s);
  EXPECT_EQ(SliceWrites(*run), (std::map<std::string, int>{{"patch", 1}}));

  for (auto& device : *report_.mutable_devices()) {
    if (device.name() == "mlx5_5") device.mutable_ports(0)->set_state("DOWN");
  }
  report_.set_content_hash(std::string(64, 'd'));
  Report(*run, report_);
  ASSERT_TRUE(Eventually([&] { return Devices().find("mlx5-5-p1") == std::string::npos; }, 30s))
      << Devices();
  EXPECT_EQ(Get("resourceslice", SliceName(), "{.spec.pool.generation}"), "2");
  std::this_thread::sleep_for(2s);
  EXPECT_EQ(SliceWrites(*run), (std::map<std::string, int>{{"patch", 2}}));
}

// An agent silent past its TTL and then the grace takes the node's slice away (its facts are no
// longer news a scheduler should act on); its next report brings the slice back.
TEST_F(ResourceSliceIntegrationTest, ASilentAgentsSliceGoesAfterTheGraceAndComesBack) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  NodeControllerOptions options;
  options.label_grace = 3s;
  auto run = StartWithHgxReport("dra-stale", 2s, options);
  ASSERT_TRUE(Eventually([&] { return !Devices().empty(); }, 60s));
  ASSERT_TRUE(Eventually([&] { return Devices().empty(); }, 30s));
  EXPECT_EQ(Get("rdmanode", node_, R"({.status.conditions[?(@.type=="Reporting")].reason})"),
            "Stale");
  EXPECT_EQ(SliceWrites(*run), (std::map<std::string, int>{{"delete", 1}, {"patch", 1}}));
  Report(*run, report_);
  EXPECT_TRUE(Eventually([&] { return !Devices().empty(); }, 30s));
}

}  // namespace
}  // namespace rdmastack::rdmanode::integration
