// ClientProfileReconciler against the in-memory API server: the writes it makes when a node's
// agent goes silent and when a node fails its checks.
#include "controllers/clientprofile/clientprofile_reconciler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "controllers/common/cache_transforms.h"
#include "controllers/common/conditions.h"
#include "controllers/common/node_walk.h"
#include "controllers/common/testing/fake_caches.h"
#include "controllers/common/testing/recorded_events.h"
#include "crds/types/gatewaypool_api.h"
#include "crds/types/json.h"
#include "crds/types/kinds.h"
#include "crds/types/label_names.h"
#include "crds/types/test_support.h"
#include "operator/k8s/testing/fake_client.h"
#include "operator/k8s/testing/json_text.h"

namespace rdmastack::clientprofile {
namespace {

using k8s::testing::Action;
using k8s::testing::JsonText;

constexpr char kNs[] = "storage";
constexpr char kProfile[] = "kvcache-hostmem";
constexpr char kGpuLabel[] = "node-role.rdmastack.io/gpu";

// The first document of `kind` in crds/samples/`file`, in namespace storage.
k8s::JsonObject Sample(const std::string& file, const std::string& kind) {
  k8s::JsonObject o = JsonText(crd::testing::YamlToJson(
      crd::testing::FindKind(crd::testing::LoadSourceYaml("crds/samples/" + file), kind)));
  o.SetNamespace(kNs);
  return o;
}

// What the operator's caches select of the profiles' pods (clientprofile_controllers.cc).
std::string ProfilePods() {
  return std::string(gatewaypool::kComponentLabel) + " in (" + kClientComponent + "," +
         kUninstallComponent + ")," + crd::kManagedByLabel + "=" + crd::kManagedByValue + "," +
         kProfileLabel;
}

class ClientProfileReconcilerTest : public ::testing::Test {
 protected:
  ClientProfileReconcilerTest() {
    const std::string owned = ProfilePods();
    ClientProfileStores stores{
        caches_.Store(crd::kinds::ClientProfile()),
        caches_.Store(crd::kinds::GatewayPool()),
        caches_.Store(k8s::kinds::Node(), "", controllers::NodeLabelsAndOperatorAnnotations()),
        caches_.Store(crd::kinds::RdmaNode()),
        caches_.Cache(k8s::kinds::Secret(), "", controllers::SecretKeysOnly()),
        caches_.Cache(k8s::kinds::EndpointSlice(), gatewaypool::OwnedSelector()),
        caches_.Cache(k8s::kinds::DaemonSet(), owned),
        caches_.Cache(k8s::kinds::ConfigMap(), owned),
        caches_.Cache(k8s::kinds::Pod(), owned, controllers::PodReadiness()),
        caches_.Cache(k8s::kinds::Pod(), kWorkloadLabel, controllers::PodPlacement()),
        node_labels_};
    reconciler_ = std::make_unique<ClientProfileReconciler>(api_, events_, clock_, stores,
                                                            ClientRenderOptions{});
  }

  // The kvcache pool with one Ready gateway endpoint, and the host-memory profile on it.
  void PutPoolAndProfile() {
    ASSERT_TRUE(
        api_.Put(crd::kinds::GatewayPool(), Sample("gatewaypool-kvcache.yaml", "GatewayPool"))
            .ok());
    k8s::JsonObject slice = JsonText(R"({"metadata": {"name": "kvcache-gateway-v1-0"},
        "addressType": "IPv4", "ports": [{"name": "s3", "port": 7071}],
        "endpoints": [{"addresses": ["10.0.0.1"], "nodeName": "stg-a",
                       "conditions": {"ready": true, "serving": true, "terminating": false}}]})");
    slice.SetNamespace(kNs);
    slice.SetLabel(gatewaypool::kPoolLabel, "kvcache");
    slice.SetLabel(gatewaypool::kComponentLabel, gatewaypool::kGatewayComponent);
    slice.SetLabel(crd::kManagedByLabel, crd::kManagedByValue);
    slice.SetLabel(gatewaypool::kLibraryVersionLabel, "1.2.0.68");
    ASSERT_TRUE(api_.Put(k8s::kinds::EndpointSlice(), slice).ok());
    ASSERT_TRUE(
        api_.Put(crd::kinds::ClientProfile(), Sample("clientprofile-hostmem.yaml", "ClientProfile"))
            .ok());
  }

  // A GPU node on which the profile's client runs, Ready, and the node labelled so.
  void PutServingNode(const std::string& name) {
    k8s::JsonObject node;
    node.SetName(name);
    node.SetLabel(kGpuLabel, "");
    node.SetLabel(ClientNodeLabel(kNs, kProfile), kReadyValue);
    ASSERT_TRUE(api_.Put(k8s::kinds::Node(), node).ok());
    k8s::JsonObject pod =
        JsonText(R"({"status": {"conditions": [{"type": "Ready", "status": "True"}]}})");
    pod.SetName(DaemonSetName(kProfile) + "-" + name);
    pod.SetNamespace(kNs);
    pod.SetLabel(gatewaypool::kComponentLabel, kClientComponent);
    pod.SetLabel(crd::kManagedByLabel, crd::kManagedByValue);
    pod.SetLabel(kProfileLabel, kProfile);
    (void)pod.SetString({"spec", "nodeName"}, name);
    ASSERT_TRUE(api_.Put(k8s::kinds::Pod(), pod).ok());
  }

  // The node's agent report: connected (with `devices` RDMA devices) or gone stale.
  void PutReport(const std::string& node, bool connected) {
    crd::RdmaNode report;
    report.metadata.name = node;
    report.status.emplace();
    report.status->agent = crd::AgentStatus{
        connected ? crd::AgentState::kConnected : crd::AgentState::kStale, "0.1.0", {}, {}, {}};
    ASSERT_TRUE(api_.Put(crd::kinds::RdmaNode(), JsonText(crd::SerializeResource(report))).ok());
  }

  std::vector<Action> Reconcile() {
    caches_.Sync();
    api_.ClearActions();
    auto result = reconciler_->Reconcile({kNs, kProfile});
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return api_.writes();
  }

  k8s::testing::FakeClient api_;
  controllers::testing::FakeCaches caches_{api_};
  controllers::testing::FakeNodeLabelCoverage node_labels_;
  controllers::testing::RecordedEvents events_;
  FakeClock clock_;
  std::unique_ptr<ClientProfileReconciler> reconciler_;
};

TEST_F(ClientProfileReconcilerTest, ANodeWhoseAgentWentSilentKeepsItsClient) {
  ASSERT_NO_FATAL_FAILURE(PutPoolAndProfile());
  ASSERT_NO_FATAL_FAILURE(PutServingNode("gpu-a"));
  ASSERT_NO_FATAL_FAILURE(PutReport("gpu-a", /*connected=*/false));

  const std::vector<Action> writes = Reconcile();
  for (const Action& a : writes) {
    EXPECT_NE(a.verb, "delete") << a.ToString();
    EXPECT_NE(a.kind, "Node") << a.ToString() << ": the node keeps its client label";
    EXPECT_NE(a.name, UninstallDaemonSetName(kProfile)) << a.ToString();
  }
  EXPECT_EQ(api_.Find(k8s::kinds::Node(), "", "gpu-a")->Label(ClientNodeLabel(kNs, kProfile)),
            kReadyValue);
  EXPECT_FALSE(api_.Find(k8s::kinds::DaemonSet(), kNs, UninstallDaemonSetName(kProfile)));
  // The status still says why the node is not eligible.
  auto profile = crd::ParseResource<crd::ClientProfile>(
      api_.Find(crd::kinds::ClientProfile(), kNs, kProfile)->value());
  ASSERT_TRUE(profile.ok() && profile->status);
  ASSERT_EQ(profile->status->ineligible_nodes.size(), 1u);
  EXPECT_EQ(profile->status->ineligible_nodes[0].reason, controllers::kAgentNotReporting);
}

TEST_F(ClientProfileReconcilerTest, ANodeThatFailsItsChecksGivesItsClientUp) {
  ASSERT_NO_FATAL_FAILURE(PutPoolAndProfile());
  ASSERT_NO_FATAL_FAILURE(PutServingNode("gpu-a"));
  // The agent reports, and the node has no RDMA device: a failed check, not silence.
  ASSERT_NO_FATAL_FAILURE(PutReport("gpu-a", /*connected=*/true));

  const std::vector<std::string> written = k8s::testing::ToStrings(Reconcile());
  const std::string uninstaller = "apply DaemonSet storage/" + UninstallDaemonSetName(kProfile);
  const auto at = [&](const std::string& what) {
    return std::find(written.begin(), written.end(), what) - written.begin();
  };
  ASSERT_LT(at(uninstaller), static_cast<long>(written.size()))
      << ::testing::PrintToString(written);
  ASSERT_LT(at("patch Node gpu-a"), static_cast<long>(written.size()));
  EXPECT_LT(at(uninstaller), at("patch Node gpu-a")) << "the uninstaller before the label";
  EXPECT_EQ(api_.Find(k8s::kinds::Node(), "", "gpu-a")->Label(ClientNodeLabel(kNs, kProfile)),
            "retiring");
}

// A toleration of the control plane's taints (controllers/common/host_policy.h) refuses the
// profile with a condition and a Warning event; the clients it runs stay, with their node labels.
TEST_F(ClientProfileReconcilerTest, AControlPlaneTolerationIsRefusedAndTheClientsStay) {
  ASSERT_NO_FATAL_FAILURE(PutPoolAndProfile());
  ASSERT_NO_FATAL_FAILURE(PutServingNode("gpu-a"));
  for (const char* tolerations : {R"([{"operator": "Exists"}])",
                                  R"([{"key": "nvidia.com/gpu", "operator": "Exists"},
            {"key": "node-role.kubernetes.io/master", "operator": "Equal", "value": ""}])"}) {
    k8s::JsonObject profile = *api_.Find(crd::kinds::ClientProfile(), kNs, kProfile);
    ASSERT_TRUE(profile.Set({"spec", "tolerations"}, JsonText(tolerations)).ok());
    (void)profile.Set({"status"}, JsonText("{}"));
    ASSERT_TRUE(api_.Put(crd::kinds::ClientProfile(), profile).ok());
    const size_t events_before = events_.events().size();

    for (const Action& a : Reconcile()) {
      EXPECT_NE(a.verb, "delete") << a.ToString();
      EXPECT_NE(a.kind, "DaemonSet") << a.ToString() << ": nothing new is rendered";
      EXPECT_NE(a.kind, "Node") << a.ToString() << ": the node keeps its client label";
    }
    auto parsed = crd::ParseResource<crd::ClientProfile>(
        api_.Find(crd::kinds::ClientProfile(), kNs, kProfile)->value());
    ASSERT_TRUE(parsed.ok() && parsed->status);
    const crd::Condition* ready = controllers::FindCondition(parsed->status->conditions, kReady);
    ASSERT_NE(ready, nullptr);
    EXPECT_EQ(ready->status, crd::ConditionStatus::kFalse);
    EXPECT_EQ(ready->reason, "ControlPlaneTolerationNotAllowed");
    EXPECT_NE(ready->message.find("so its privileged pods could run on control-plane nodes"),
              std::string::npos)
        << ready->message;
    const std::vector<std::string> events = events_.events();
    EXPECT_NE(std::find(events.begin() + events_before, events.end(),
                        "Warning ControlPlaneTolerationNotAllowed storage/kvcache-hostmem"),
              events.end())
        << ::testing::PrintToString(events);
    EXPECT_EQ(api_.Find(k8s::kinds::Node(), "", "gpu-a")->Label(ClientNodeLabel(kNs, kProfile)),
              kReadyValue);
  }
}

}  // namespace
}  // namespace rdmastack::clientprofile
