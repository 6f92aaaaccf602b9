#include "operator/runtime/predicates.h"

#include <gtest/gtest.h>

#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

k8s::JsonObject WithOwners(const std::string& ns, std::vector<k8s::OwnerReference> owners) {
  k8s::JsonObject o = k8s::testing::MakeObject(ns, "child", "1");
  for (const auto& ref : owners) k8s::testing::AddOwnerReference(o, ref);
  return o;
}

TEST(EnqueueOwnerTest, Table) {
  const k8s::OwnerReference pool_ctrl{
      "rdmastack.io/v1alpha1", "GatewayPool", "pool", "u1", true, true};
  const k8s::OwnerReference pool_v2{
      "rdmastack.io/v1beta1", "GatewayPool", "pool2", "u2", true, true};
  const k8s::OwnerReference pool_plain{
      "rdmastack.io/v1alpha1", "GatewayPool", "other", "u3", false, false};
  const k8s::OwnerReference ds{"apps/v1", "DaemonSet", "ds", "u4", true, true};
  const k8s::OwnerReference other_group{
      "example.com/v1", "GatewayPool", "foreign", "u5", true, true};
  struct Case {
    const char* what;
    std::vector<k8s::OwnerReference> owners;
    bool only_controller;
    std::vector<Request> want;
  };
  const Case cases[] = {
      {"no owners", {}, true, {}},
      {"controller owner", {pool_ctrl}, true, {{"ns", "pool"}}},
      {"other version of the group matches", {pool_v2}, true, {{"ns", "pool2"}}},
      {"non-controller skipped", {pool_plain}, true, {}},
      {"non-controller accepted when asked",
       {pool_plain, pool_ctrl},
       false,
       {{"ns", "other"}, {"ns", "pool"}}},
      {"other kind", {ds}, true, {}},
      {"same kind, other group", {other_group}, true, {}},
  };
  for (const Case& c : cases) {
    auto map = EnqueueOwner("rdmastack.io", "GatewayPool", c.only_controller);
    EXPECT_EQ(map(WithOwners("ns", c.owners)), c.want) << c.what;
  }
}

TEST(EnqueueOwnerTest, ClusterScopedOwnerHasNoNamespace) {
  const k8s::OwnerReference node{"v1", "Node", "node-1", "u", true, false};
  auto map = EnqueueOwner("", "Node", true, /*owner_namespaced=*/false);
  EXPECT_EQ(map(WithOwners("ns", {node})), (std::vector<Request>{{"", "node-1"}}));
}

TEST(EnqueueSelfTest, MapsToTheObjectsOwnKey) {
  EXPECT_EQ(EnqueueSelf()(k8s::testing::MakeObject("ns", "a", "1")),
            (std::vector<Request>{{"ns", "a"}}));
  EXPECT_EQ(EnqueueSelf()(k8s::testing::MakeObject("", "node", "1"))[0].Key(), "node");
}

TEST(GenerationChangedTest, Table) {
  struct Case {
    int64_t old_gen, new_gen;
    bool pass;
  };
  const Case cases[] = {{1, 1, false}, {1, 2, true}, {3, 2, true}};
  const Predicate p = GenerationChanged();
  for (const Case& c : cases) {
    EXPECT_EQ(p.update(k8s::testing::MakeObject("n", "a", "1", c.old_gen),
                       k8s::testing::MakeObject("n", "a", "2", c.new_gen)),
              c.pass);
  }
  EXPECT_FALSE(p.create);  // creates and deletes pass
  EXPECT_FALSE(p.del);
}

TEST(RequestTest, KeyRoundTrip) {
  const Request cases[] = {{"ns", "a"}, {"", "node"}};
  for (const Request& r : cases) EXPECT_EQ(Request::FromKey(r.Key()), r);
  EXPECT_EQ(GroupOf("apps/v1"), "apps");
  EXPECT_EQ(GroupOf("v1"), "");
}

TEST(TerminalErrorTest, MarksAndKeepsTheCause) {
  const Status plain = InvalidArgumentError("spec.version.major must be >= 1");
  const Status terminal = TerminalError(plain);
  EXPECT_FALSE(IsTerminalError(plain));
  EXPECT_TRUE(IsTerminalError(terminal));
  EXPECT_EQ(terminal.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(terminal.message(), plain.message());
  EXPECT_TRUE(IsTerminalError(terminal.WithContext("reconcile")));
}

TEST(PredicatesTest, NotStatusOnlyPassesMetadataAndSpecButNotStatus) {
  const Predicate p = NotStatusOnly();
  k8s::JsonObject a = k8s::testing::MakeObject("ns", "p", "1", 1);
  k8s::JsonObject status = a;
  ASSERT_TRUE(status.SetString({"status", "phase"}, "Ready").ok());
  EXPECT_FALSE(p.update(a, status));
  k8s::JsonObject spec = k8s::testing::MakeObject("ns", "p", "2", 2);
  EXPECT_TRUE(p.update(a, spec));
  k8s::JsonObject labelled = a;
  labelled.SetLabel("x", "y");
  EXPECT_TRUE(p.update(a, labelled));
  EXPECT_FALSE(p.create);  // creates and deletes pass
}

TEST(MappersTest, ByLabelAllAndAllInNamespace) {
  k8s::JsonObject pod = k8s::testing::MakeObject("ns", "pod", "1");
  EXPECT_TRUE(EnqueueByLabel("owner")(pod).empty());
  pod.SetLabel("owner", "pool-a");
  ASSERT_EQ(EnqueueByLabel("owner")(pod).size(), 1u);
  EXPECT_EQ(EnqueueByLabel("owner")(pod)[0].Key(), "ns/pool-a");

  Store store;
  store.Upsert(std::make_shared<const k8s::JsonObject>(k8s::testing::MakeObject("ns", "a", "1")));
  store.Upsert(std::make_shared<const k8s::JsonObject>(k8s::testing::MakeObject("other", "b", "1")));
  EXPECT_EQ(EnqueueAll(store)(pod).size(), 2u);
  const std::vector<Request> same_ns = EnqueueAllInNamespace(store)(pod);
  ASSERT_EQ(same_ns.size(), 1u);
  EXPECT_EQ(same_ns[0].Key(), "ns/a");
}

}  // namespace
}  // namespace rdmastack::runtime
