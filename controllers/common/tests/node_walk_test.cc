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

TEST(OwnedObjectsTest, OwnedByNamespaceAndControllerReference) {
  // The label selects; only the controller reference to the owner's UID makes an object its own.
  auto with_controller = [](const std::string& text, const std::string& uid) {
    k8s::JsonObject o = k8s::testing::JsonText(text);
    if (!uid.empty()) {
      (void)o.Append({"metadata", "ownerReferences"},
                     testing::ControllerRef("rdmastack.io/v1alpha1", "GatewayPool", "p", uid));
    }
    return std::make_shared<const k8s::JsonObject>(std::move(o));
  };
  runtime::Store store;
  store.Upsert(with_controller(
      R"({"metadata": {"name": "x", "namespace": "a", "labels": {"pool": "p"}}})", "uid-p"));
  store.Upsert(with_controller(
      R"({"metadata": {"name": "y", "namespace": "b", "labels": {"pool": "p"}}})", "uid-p"));
  store.Upsert(with_controller(
      R"({"metadata": {"name": "z", "namespace": "a", "labels": {"pool": "q"}}})", "uid-q"));
  store.Upsert(with_controller(
      R"({"metadata": {"name": "copy", "namespace": "a", "labels": {"pool": "p"}}})", ""));
  store.Upsert(with_controller(
      R"({"metadata": {"name": "other", "namespace": "a", "labels": {"pool": "p"}}})", "uid-x"));
  const NamespacedCache cache = NamespacedCache::OfStore(store);
  const Owner owner{"a", "pool", "p", "uid-p"};
  const std::vector<runtime::ObjectPtr> owned = ListOwned(cache, owner);
  ASSERT_EQ(owned.size(), 1u);
  EXPECT_EQ(owned[0]->Key(), "a/x");
  EXPECT_NE(GetOwned(cache, owner, "x"), nullptr);
  EXPECT_EQ(GetOwned(cache, owner, "z"), nullptr) << "another owner's";
  EXPECT_EQ(GetOwned(cache, owner, "copy"), nullptr) << "the label without the reference";
  EXPECT_EQ(GetOwned(cache, owner, "missing"), nullptr);
  std::vector<std::string> look_alikes;
  for (const runtime::ObjectPtr& o : Claim(cache, owner).look_alikes)
    look_alikes.push_back(o->Key());
  std::sort(look_alikes.begin(), look_alikes.end());
  EXPECT_EQ(look_alikes, (std::vector<std::string>{"a/copy", "a/other"}));
  EXPECT_TRUE(ListOwned(cache, Owner{"a", "pool", "p", ""}).empty()) << "no UID owns nothing";
}

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
