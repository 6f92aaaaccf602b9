#include "operator/k8s/resource.h"

#include <gtest/gtest.h>

#include <set>

#include "operator/k8s/json_object.h"
#include "operator/k8s/testing/test_kinds.h"

namespace rdmastack::k8s {
namespace {

using testing::TestNodeReport;
using testing::TestPool;

TEST(ResourceTest, PathTable) {
  struct Case {
    const ResourceType& type;
    std::string ns;
    std::string want_collection;
  };
  const std::vector<Case> cases = {
      {kinds::Pod(), "prod", "/api/v1/namespaces/prod/pods"},
      {kinds::Pod(), "", "/api/v1/pods"},
      {kinds::Node(), "", "/api/v1/nodes"},
      {kinds::Namespace(), "", "/api/v1/namespaces"},
      {kinds::DaemonSet(), "x", "/apis/apps/v1/namespaces/x/daemonsets"},
      {kinds::Lease(), "kube-system", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"},
      {kinds::EventsV1(), "x", "/apis/events.k8s.io/v1/namespaces/x/events"},
      {kinds::Event(), "x", "/api/v1/namespaces/x/events"},
      {kinds::TokenReview(), "", "/apis/authentication.k8s.io/v1/tokenreviews"},
      {kinds::SubjectAccessReview(), "", "/apis/authorization.k8s.io/v1/subjectaccessreviews"},
      {kinds::CustomResourceDefinition(), "",
       "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"},
      {TestPool(), "s", "/apis/rdmastack.io/v1alpha1/namespaces/s/gatewaypools"},
      {kinds::EndpointSlice(), "s", "/apis/discovery.k8s.io/v1/namespaces/s/endpointslices"},
      {TestNodeReport(), "", "/apis/rdmastack.io/v1alpha1/rdmanodes"},
  };
  for (const auto& c : cases) {
    auto path = CollectionPath(c.type, c.ns);
    ASSERT_TRUE(path.ok()) << c.type.kind << ": " << path.status().ToString();
    EXPECT_EQ(*path, c.want_collection);
  }
  EXPECT_FALSE(TestNodeReport().namespaced);
  EXPECT_TRUE(TestPool().namespaced);
}

TEST(ResourceTest, ObjectPathsAndSubresources) {
  EXPECT_EQ(*ObjectPath(TestPool(), "s", "pool-a", "status"),
            "/apis/rdmastack.io/v1alpha1/namespaces/s/gatewaypools/pool-a/status");
  EXPECT_EQ(*ObjectPath(kinds::ServiceAccount(), "s", "agent", "token"),
            "/api/v1/namespaces/s/serviceaccounts/agent/token");
  EXPECT_EQ(*ObjectPath(kinds::Node(), "", "n1"), "/api/v1/nodes/n1");
}

TEST(ResourceTest, RejectsBadScopesAndSegments) {
  struct Case {
    std::string name;
    const ResourceType& type;
    std::string ns, object_name;
  };
  const std::vector<Case> cases = {
      {"namespace on cluster-scoped", kinds::Node(), "x", "n1"},
      {"namespaced without namespace", kinds::Pod(), "", "p"},
      {"empty name", kinds::Pod(), "x", ""},
      {"slash in name", kinds::Pod(), "x", "a/b"},
      {"dot-dot name", kinds::Pod(), "x", ".."},
      {"slash in namespace", kinds::Pod(), "x/../y", "p"},
      {"query in name", kinds::Pod(), "x", "p?watch=1"},
  };
  for (const auto& c : cases) {
    auto path = ObjectPath(c.type, c.ns, c.object_name);
    EXPECT_FALSE(path.ok()) << c.name;
    EXPECT_EQ(path.status().code(), StatusCode::kInvalidArgument) << c.name;
  }
}

TEST(ResourceTest, RegistryLooksUpBuiltInsAndWhatIsAdded) {
  ResourceRegistry registry = ResourceRegistry::BuiltIn();
  EXPECT_EQ(*registry.Lookup("apps/v1", "DaemonSet"), kinds::DaemonSet());
  EXPECT_EQ(*registry.Lookup("v1", "Event"), kinds::Event());
  EXPECT_EQ(*registry.Lookup("events.k8s.io/v1", "Event"), kinds::EventsV1());
  EXPECT_EQ(*registry.Lookup("discovery.k8s.io/v1", "EndpointSlice"), kinds::EndpointSlice());
  // A custom resource is unknown until added.
  EXPECT_EQ(registry.Lookup("rdmastack.io/v1alpha1", "RdmaNode").status().code(),
            StatusCode::kNotFound);
  ASSERT_TRUE(registry.Add(TestNodeReport()).ok());
  ASSERT_TRUE(registry.Add(TestNodeReport()).ok());  // the same again changes nothing
  EXPECT_EQ(*registry.Lookup("rdmastack.io/v1alpha1", "RdmaNode"), TestNodeReport());
  ResourceType other = TestNodeReport();
  other.namespaced = true;
  EXPECT_EQ(registry.Add(other).code(), StatusCode::kAlreadyExists);

  auto missing = registry.Lookup("apps/v1", "Gadget");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("Gadget"), std::string::npos);

  JsonObject lease;
  lease.SetApiVersion("coordination.k8s.io/v1");
  lease.SetKind("Lease");
  EXPECT_EQ(*registry.LookupFor(lease), kinds::Lease());
  EXPECT_FALSE(registry.LookupFor(JsonObject()).ok());

  // Every (apiVersion, kind) pair is there once.
  std::set<std::string> seen;
  for (const auto& t : registry.types()) {
    EXPECT_TRUE(seen.insert(t.ApiVersion() + "/" + t.kind).second) << t.kind;
  }
  EXPECT_EQ(kinds::Deployment().GroupResource(), "deployments.apps");
  EXPECT_EQ(kinds::Pod().GroupResource(), "pods");
}

}  // namespace
}  // namespace rdmastack::k8s
