// PlanProfile without a client: snapshots as the caches would give them, and the plan's decisions
// (the spec's verdict, each node's eligibility and next label, retiring nodes, the uninstaller).
#include "controllers/clientprofile/profile_plan.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "controllers/clientprofile/node_retirement.h"
#include "controllers/rdmanode/rdmanode_status.h"
#include "controllers/rdmanode/testing/fixture_reports.h"
#include "crds/types/clientprofile_api.h"
#include "crds/types/json.h"
#include "crds/types/test_support.h"
#include "operator/k8s/testing/json_text.h"

namespace rdmastack::clientprofile {
namespace {

using k8s::testing::JsonText;

constexpr char kNs[] = "storage";
constexpr char kEligibleFixture[] = "gpu-client-rtxa6000-bar1-256m-peermem-mofed";

crd::ClientProfile PlanProfile() {
  k8s::JsonObject o = JsonText(crd::testing::YamlToJson(crd::testing::FindKind(
      crd::testing::LoadSourceYaml("crds/samples/clientprofile-hostmem.yaml"), "ClientProfile")));
  o.SetNamespace(kNs);
  return crd::ParseResource<crd::ClientProfile>(o.value()).value();
}

crd::GatewayPool Pool() {
  k8s::JsonObject o = JsonText(crd::testing::YamlToJson(crd::testing::FindKind(
      crd::testing::LoadSourceYaml("crds/samples/gatewaypool-kvcache.yaml"), "GatewayPool")));
  o.SetNamespace(kNs);
  return crd::ParseResource<crd::GatewayPool>(o.value()).value();
}

crd::RdmaNodeStatus PlanReported(const std::string& fixture) {
  crd::RdmaNodeStatus status;
  rdmanode::FillFacts(
      rdmanode::testing::FixtureReport(
          fixture, rdmanode::testing::ClientRequirements("storage/kvcache-hostmem")),
      &status);
  status.agent = crd::AgentStatus{crd::AgentState::kConnected, "0.1.0", {}, {}, {}};
  return status;
}

// A node named `name`, with the profile's label at `label` when given.
runtime::ObjectPtr Node(const std::string& name, std::optional<std::string> label = std::nullopt) {
  k8s::JsonObject node = JsonText(R"({"apiVersion":"v1","kind":"Node","metadata":{}})");
  node.SetName(name);
  (void)node.SetString({"metadata", "resourceVersion"}, "7");
  if (label) node.SetLabel(ClientNodeLabel(kNs, "kvcache-hostmem"), *label);
  return std::make_shared<const k8s::JsonObject>(std::move(node));
}

controllers::OwnedPod ClientPod(bool ready, std::string message = "") {
  controllers::OwnedPod p;
  p.name = "client-x";
  p.component = kClientComponent;
  p.ready = ready;
  p.message = std::move(message);
  return p;
}

class ProfilePlanTest : public ::testing::Test {
 protected:
  ProfilePlanTest() : profile_(PlanProfile()) {
    snapshot_.profile = &profile_;
    snapshot_.pool = Pool();
    snapshot_.endpoints = {PoolEndpoint{}};
  }
  ProfilePlan Plan() { return PlanProfile(snapshot_, options_); }
  // The label value node `name`'s patch sets (nullopt: it removes the label; "-": no patch).
  std::optional<std::string> PatchedLabel(const ProfilePlan& plan, const std::string& name) {
    for (const LabelPatch& p : plan.labels.patches) {
      if (p.node != name) continue;
      auto body = k8s::JsonObject::Parse(p.body);
      EXPECT_TRUE(body.ok());
      EXPECT_EQ(p.resource_version, "7");
      return body->GetString({"metadata", "labels", ClientNodeLabel(kNs, "kvcache-hostmem")});
    }
    return std::string("-");
  }

  crd::ClientProfile profile_;
  ProfileSnapshot snapshot_;
  ClientRenderOptions options_;
};

TEST_F(ProfilePlanTest, AnAcceptedSpecRendersTheClientsAndLabelsEachNodeByItsVerdict) {
  snapshot_.nodes = {
      {Node("gpu-a"), true, PlanReported(kEligibleFixture)},
      {Node("gpu-b", std::string(kEligibleValue)), true, PlanReported(kEligibleFixture)},
      {Node("gpu-c"), true, std::nullopt}};
  snapshot_.pods["gpu-b"].client = ClientPod(/*ready=*/true);
  const ProfilePlan plan = Plan();
  EXPECT_TRUE(plan.daemonset.has_value());
  EXPECT_EQ(plan.status.refused_reason, "");
  EXPECT_TRUE(plan.status.pool_found);
  EXPECT_EQ(plan.status.endpoints, 1);
  ASSERT_EQ(plan.status.nodes.size(), 3u);
  EXPECT_TRUE(plan.status.nodes[0].eligibility.eligible);
  EXPECT_FALSE(plan.status.nodes[0].ready);
  EXPECT_TRUE(plan.status.nodes[1].ready);
  EXPECT_FALSE(plan.status.nodes[2].eligibility.eligible);  // no report yet
  EXPECT_EQ(PatchedLabel(plan, "gpu-a"), kEligibleValue);
  EXPECT_EQ(PatchedLabel(plan, "gpu-b"), kReadyValue);
  EXPECT_EQ(PatchedLabel(plan, "gpu-c"), "-");  // never labelled, not eligible: nothing to write
  EXPECT_FALSE(plan.labels.uninstaller_needed);
}

TEST_F(ProfilePlanTest, ANodeLeavingKeepsItsFilesWhileAPodNamesTheProfileThenUninstalls) {
  snapshot_.nodes = {{Node("gpu-z", std::string(kReadyValue)), false, std::nullopt},
                     {Node("gpu-y", std::string(kRetiringValue)), false, std::nullopt}};
  snapshot_.pods["gpu-z"].holders = {"app-1"};
  const ProfilePlan plan = Plan();
  EXPECT_TRUE(plan.status.nodes.empty());
  EXPECT_EQ(PatchedLabel(plan, "gpu-z"), kRetiringValue);
  EXPECT_EQ(PatchedLabel(plan, "gpu-y"), kUninstallValue);  // nothing holds it any more
  EXPECT_TRUE(plan.labels.uninstaller_needed);
  ASSERT_EQ(plan.status.retiring.size(), 2u);
  EXPECT_EQ(plan.status.retiring[0].node, "gpu-y");  // sorted by name
  EXPECT_EQ(plan.status.retiring[1].node, "gpu-z");
  EXPECT_EQ(plan.status.retiring[1].phase, "HeldByPods");
  EXPECT_EQ(plan.status.retiring[1].pods, std::vector<std::string>{"app-1"});
}

TEST_F(ProfilePlanTest, ARefusedSpecRendersNothingAndSaysWhyFirstThingFirst) {
  // The namespace comes first: nothing else is judged in a namespace the operator does not serve.
  snapshot_.unserved = "namespace storage is not served";
  profile_.spec.credentials_secret = crd::CredentialsSecretRef{};
  profile_.spec.credentials_secret->name = snapshot_.pool->spec.s3.credentials_secret.name;
  ProfilePlan plan = Plan();
  EXPECT_EQ(plan.status.refused_reason, "NamespaceNotServed");
  EXPECT_FALSE(plan.daemonset.has_value());

  // The pool's root keys are never handed to the GPU nodes.
  snapshot_.unserved.reset();
  plan = Plan();
  EXPECT_EQ(plan.status.refused_reason, "RootCredentialsRefused");
  EXPECT_FALSE(plan.daemonset.has_value());

  // An image outside the admin's prefixes.
  profile_.spec.credentials_secret.reset();
  options_.node_pods.tenancy.images = {{"", "registry.example.com/"}};
  plan = Plan();
  EXPECT_EQ(plan.status.refused_reason, "NotAllowed");
  EXPECT_NE(plan.status.refused_message.find("clientLibrary.image"), std::string::npos);
  EXPECT_FALSE(plan.daemonset.has_value());
}

TEST_F(ProfilePlanTest, AClientsLibraryRefusalIsNamedWithItsNode) {
  snapshot_.nodes = {
      {Node("gpu-a", std::string(kEligibleValue)), true, PlanReported(kEligibleFixture)}};
  snapshot_.pods["gpu-a"].client =
      ClientPod(false, "LibraryRefused: libcuobjclient.so.1 names ../x as its SONAME");
  const ProfilePlan plan = Plan();
  EXPECT_EQ(plan.status.library_refused.reason, "LibraryRefused");
  EXPECT_NE(plan.status.library_refused.message.find("the client on node gpu-a refused"),
            std::string::npos);
}

}  // namespace
}  // namespace rdmastack::clientprofile
