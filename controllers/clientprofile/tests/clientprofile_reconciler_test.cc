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
#include "controllers/common/testing/owner_refs.h"
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

using controllers::testing::ControllerRef;
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
    auto pool =
        api_.Put(crd::kinds::GatewayPool(), Sample("gatewaypool-kvcache.yaml", "GatewayPool"));
    ASSERT_TRUE(pool.ok());
    k8s::JsonObject slice = JsonText(R"({"metadata": {"name": "kvcache-gateway-v1-0"},
        "addressType": "IPv4", "ports": [{"name": "s3", "port": 7071}],
        "endpoints": [{"addresses": ["10.0.0.1"], "nodeName": "stg-a",
                       "conditions": {"ready": true, "serving": true, "terminating": false}}]})");
    slice.SetNamespace(kNs);
    slice.SetLabel(gatewaypool::kPoolLabel, "kvcache");
    slice.SetLabel(gatewaypool::kComponentLabel, gatewaypool::kGatewayComponent);
    slice.SetLabel(crd::kManagedByLabel, crd::kManagedByValue);
    slice.SetLabel(gatewaypool::kLibraryVersionLabel, "1.2.0.68");
    // The pool's own slice: the pool is its controller (controllers/common/owned_objects.h).
    (void)slice.Append({"metadata", "ownerReferences"},
                       ControllerRef(std::string(crd::kApiVersion), "GatewayPool", "kvcache",
                                     std::string(pool->Uid())));
    ASSERT_TRUE(api_.Put(k8s::kinds::EndpointSlice(), slice).ok());
    ASSERT_TRUE(
        api_.Put(crd::kinds::ClientProfile(), Sample("clientprofile-hostmem.yaml", "ClientProfile"))
            .ok());
  }

  // The profile's client DaemonSet as the operator applies it (its controller is the profile).
  std::string PutClientDaemonSet() {
    if (auto ds = api_.Find(k8s::kinds::DaemonSet(), kNs, DaemonSetName(kProfile)))
      return std::string(ds->Uid());
    auto profile = crd::ParseResource<crd::ClientProfile>(
        api_.Find(crd::kinds::ClientProfile(), kNs, kProfile)->value());
    EXPECT_TRUE(profile.ok());
    auto ds = RenderClientDaemonSet(*profile, ClientRenderOptions{});
    EXPECT_TRUE(ds.ok());
    auto stored = api_.Put(k8s::kinds::DaemonSet(), *ds);
    EXPECT_TRUE(stored.ok());
    return std::string(stored->Uid());
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
    (void)pod.Append(
        {"metadata", "ownerReferences"},
        ControllerRef("apps/v1", "DaemonSet", DaemonSetName(kProfile), PutClientDaemonSet()));
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

// Ownership is the controller reference, not the label (controllers/common/owned_objects.h): an
// EndpointSlice with the pool's labels that the pool does not control is not published to the
// clients (nor dialled by the S3 user provisioning), and a pod with the profile's labels that no
// DaemonSet of the profile controls is not its client; a Warning event names each.
TEST_F(ClientProfileReconcilerTest, LookAlikesAreNotPublishedOrCountedAndAreNamed) {
  ASSERT_NO_FATAL_FAILURE(PutPoolAndProfile());
  k8s::JsonObject slice = *api_.Find(k8s::kinds::EndpointSlice(), kNs, "kvcache-gateway-v1-0");
  slice.SetName("kvcache-gateway-v1-9");
  ASSERT_TRUE(slice.Remove({"metadata", "ownerReferences"}));
  (void)slice.Remove({"metadata", "uid"});
  ASSERT_TRUE(slice.Set({"endpoints", "0", "addresses", "0"}, JsonText(R"("10.6.6.6")")).ok());
  ASSERT_TRUE(api_.Put(k8s::kinds::EndpointSlice(), slice).ok());
  // A node with the profile's ready label whose only "client" is a pod of nobody's.
  k8s::JsonObject node;
  node.SetName("gpu-z");
  node.SetLabel(kGpuLabel, "");
  node.SetLabel(ClientNodeLabel(kNs, kProfile), kReadyValue);
  ASSERT_TRUE(api_.Put(k8s::kinds::Node(), node).ok());
  k8s::JsonObject pod =
      JsonText(R"({"status": {"conditions": [{"type": "Ready", "status": "True"}]}})");
  pod.SetName(DaemonSetName(kProfile) + "-fake");
  pod.SetNamespace(kNs);
  pod.SetLabel(gatewaypool::kComponentLabel, kClientComponent);
  pod.SetLabel(crd::kManagedByLabel, crd::kManagedByValue);
  pod.SetLabel(kProfileLabel, kProfile);
  (void)pod.SetString({"spec", "nodeName"}, "gpu-z");
  ASSERT_TRUE(api_.Put(k8s::kinds::Pod(), pod).ok());

  for (const Action& a : Reconcile()) {
    EXPECT_NE(a.name, "kvcache-gateway-v1-9") << a.ToString();
    EXPECT_NE(a.name, DaemonSetName(kProfile) + "-fake") << a.ToString();
  }
  const auto cm = api_.Find(k8s::kinds::ConfigMap(), kNs, EndpointsConfigMapName(kProfile));
  ASSERT_TRUE(cm.has_value());
  const std::string endpoints = cm->GetString({"data", kEndpointsKey}).value_or("");
  EXPECT_NE(endpoints.find("10.0.0.1"), std::string::npos) << endpoints;
  EXPECT_EQ(endpoints.find("10.6.6.6"), std::string::npos) << endpoints;
  const std::vector<std::string> related = events_.related();
  const std::string name = "Pod storage/" + DaemonSetName(kProfile) + "-fake";
  EXPECT_TRUE(std::any_of(related.begin(), related.end(),
                          [&](const std::string& r) {
                            return r.rfind("NotOwnedIgnored ", 0) == 0 &&
                                   r.find(": " + name + " carries") != std::string::npos;
                          }))
      << name << " in " << ::testing::PrintToString(related);
}

}  // namespace
}  // namespace rdmastack::clientprofile
