// The pieces of a pass: the node walk and the silent-agent rule, the owner's objects in a cache,
// and its pods by node.
#include "controllers/common/node_walk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "controllers/common/owned_objects.h"
#include "controllers/common/owned_pod.h"
#include "controllers/common/testing/owner_refs.h"
#include "crds/types/gatewaypool_api.h"
#include "crds/types/json.h"
#include "operator/k8s/testing/json_text.h"

namespace rdmastack::controllers {
namespace {

runtime::ObjectPtr Object(const std::string& text) {
  return std::make_shared<const k8s::JsonObject>(k8s::testing::JsonText(text));
}

TEST(NodeWalkTest, VisitsEveryNodeInNameOrderWithTheReportsOfSelectedOnes) {
  runtime::Store nodes, rdmanodes;
  nodes.Upsert(Object(R"({"metadata": {"name": "b", "labels": {"role": "storage"}}})"));
  nodes.Upsert(Object(R"({"metadata": {"name": "a", "labels": {"role": "storage"}}})"));
  nodes.Upsert(Object(R"({"metadata": {"name": "c", "labels": {"role": "gpu"}}})"));
  rdmanodes.Upsert(Object(R"({"apiVersion": "rdmastack.io/v1alpha1", "kind": "RdmaNode",
      "metadata": {"name": "a"}, "spec": {}, "status": {"agent": {"state": "Connected"}}})"));
  rdmanodes.Upsert(Object(R"({"apiVersion": "rdmastack.io/v1alpha1", "kind": "RdmaNode",
      "metadata": {"name": "c"}, "spec": {}, "status": {"agent": {"state": "Connected"}}})"));
  std::vector<std::string> seen;
  ForEachNode(nodes, rdmanodes, {{"role", "storage"}}, [&](NodeView& node) {
    seen.push_back(node.name + (node.selected ? " selected" : "") +
                   (node.report ? " reported" : "") + " " + node.labels.at("role"));
    EXPECT_EQ(node.object->Name(), node.name);
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"a selected reported storage", "b selected storage",
                                            "c gpu"}))
      << "c's report is not read: the selector leaves it out";
}

TEST(NodeWalkTest, ASilentAgentKeepsOnlyWhatRunsAlready) {
  EXPECT_TRUE(KeepsWorkload(true, false, "Verified"));
  EXPECT_TRUE(KeepsWorkload(false, true, kAgentNotReporting));
  EXPECT_FALSE(KeepsWorkload(false, false, kAgentNotReporting)) << "nothing new starts";
  EXPECT_FALSE(KeepsWorkload(false, true, "PortDown")) << "a failed check takes it away";
}

// Run with a label the owner index does not file (the whole cache is read) and with the pool
// label it does (only the owner's entries are): both give the same answer.
class OwnedObjectsTest : public ::testing::TestWithParam<const char*> {};

TEST_P(OwnedObjectsTest, OwnedByNamespaceAndControllerReference) {
  // The label selects; only the controller reference to the owner's UID makes an object its own.
  const std::string label = GetParam();
  auto with_controller = [&](const std::string& name, const std::string& ns,
                             const std::string& pool, const std::string& uid) {
    k8s::JsonObject o = k8s::testing::JsonText(R"({"metadata": {}})");
    (void)o.SetString({"metadata", "name"}, name);
    (void)o.SetString({"metadata", "namespace"}, ns);
    if (!pool.empty()) o.SetLabel(label, pool);
    if (!uid.empty()) {
      (void)o.Append({"metadata", "ownerReferences"},
                     testing::ControllerRef("rdmastack.io/v1alpha1", "GatewayPool", "p", uid));
    }
    return std::make_shared<const k8s::JsonObject>(std::move(o));
  };
  runtime::Store store;
  store.Upsert(with_controller("x", "a", "p", "uid-p"));
  store.Upsert(with_controller("y", "b", "p", "uid-p"));
  store.Upsert(with_controller("z", "a", "q", "uid-q"));
  store.Upsert(with_controller("copy", "a", "p", ""));
  store.Upsert(with_controller("other", "a", "p", "uid-x"));
  store.Upsert(with_controller("unlabelled", "a", "", "uid-p"));
  const NamespacedCache cache = NamespacedCache::OfStore(store);
  const Owner owner{"a", label, "p", "uid-p"};
  std::vector<std::string> owned;
  for (const runtime::ObjectPtr& o : ListOwned(cache, owner)) owned.push_back(o->Key());
  EXPECT_EQ(owned, (std::vector<std::string>{"a/unlabelled", "a/x"}))
      << "in key order; the reference owns, with or without the label";
  EXPECT_NE(GetOwned(cache, owner, "x"), nullptr);
  EXPECT_EQ(GetOwned(cache, owner, "z"), nullptr) << "another owner's";
  EXPECT_EQ(GetOwned(cache, owner, "copy"), nullptr) << "the label without the reference";
  EXPECT_EQ(GetOwned(cache, owner, "missing"), nullptr);
  std::vector<std::string> look_alikes;
  for (const runtime::ObjectPtr& o : Claim(cache, owner).look_alikes)
    look_alikes.push_back(o->Key());
  EXPECT_EQ(look_alikes, (std::vector<std::string>{"a/copy", "a/other"}));
  EXPECT_TRUE(ListOwned(cache, Owner{"a", label, "p", ""}).empty()) << "no UID owns nothing";

  // Pods through the owner's DaemonSets: x's pod and a look-alike pod; after a relabel the index
  // follows the store.
  runtime::Store pods;
  k8s::JsonObject pod = *with_controller("x-1", "a", "p", "uid-ds");
  pods.Upsert(std::make_shared<const k8s::JsonObject>(pod));
  pods.Upsert(with_controller("x-2", "a", "p", "uid-elsewhere"));
  const NamespacedCache pod_cache = NamespacedCache::OfStore(pods);
  k8s::JsonObject ds = *with_controller("ds", "a", "p", "uid-p");
  (void)ds.SetString({"metadata", "uid"}, "uid-ds");
  const std::vector<runtime::ObjectPtr> daemonsets{std::make_shared<const k8s::JsonObject>(ds)};
  Claimed claimed = ClaimPods(pod_cache, owner, daemonsets);
  ASSERT_EQ(claimed.owned.size(), 1u);
  EXPECT_EQ(claimed.owned[0]->Key(), "a/x-1");
  ASSERT_EQ(claimed.look_alikes.size(), 1u);
  pod.SetLabel(label, "q");
  pods.Upsert(std::make_shared<const k8s::JsonObject>(pod));
  pods.Delete("a/x-2");
  claimed = ClaimPods(pod_cache, owner, daemonsets);
  ASSERT_EQ(claimed.owned.size(), 1u) << "still its DaemonSet's";
  EXPECT_TRUE(claimed.look_alikes.empty());
}

INSTANTIATE_TEST_SUITE_P(ReadWholeAndIndexed, OwnedObjectsTest,
                         ::testing::Values("pool", gatewaypool::kPoolLabel));

TEST(OwnedPodTest, GroupByNodeKeepsTheLivePodOfEachSlot) {
  auto pod = [](const std::string& name, const std::string& node, const std::string& track,
                bool terminating) {
    OwnedPod p;
    p.name = name;
    p.node = node;
    p.track = track;
    p.terminating = terminating;
    return p;
  };
  const PodsByNode grouped = GroupByNode(
      {pod("old", "n1", "v1", true), pod("new", "n1", "v1", false), pod("other", "n1", "v2", false),
       pod("later", "n1", "v2", false), pod("pending", "", "v1", false)},
      [](const OwnedPod& p) { return p.track; });
  ASSERT_EQ(grouped.size(), 1u) << "a pod without a node is left out";
  EXPECT_EQ(grouped.at("n1").at("v1").name, "new") << "the live one of a replacement";
  EXPECT_EQ(grouped.at("n1").at("v2").name, "other") << "else the first";
}

}  // namespace
}  // namespace rdmastack::controllers
