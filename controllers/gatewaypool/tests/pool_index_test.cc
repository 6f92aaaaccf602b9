// The pools cache's indexes: which pools a node's, a report's or a pool's change reaches, and the
// selector keys, without reading every pool; each answer is checked against the pools' selectors.
#include "controllers/gatewaypool/pool_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crds/types/gatewaypool_api.h"
#include "crds/types/node_upgrade.h"
#include "operator/k8s/testing/json_text.h"

namespace rdmastack::gatewaypool {
namespace {

runtime::ObjectPtr Object(const std::string& text) {
  return std::make_shared<const k8s::JsonObject>(k8s::testing::JsonText(text));
}

runtime::ObjectPtr Pool(const std::string& ns, const std::string& name,
                        const std::string& selector) {
  return Object(R"({"metadata": {"name": ")" + name + R"(", "namespace": ")" + ns +
                R"("}, "spec": {"nodeSelector": )" + selector + "}}");
}

runtime::ObjectPtr Node(const std::string& name, const std::string& labels,
                        const std::string& annotations = "{}") {
  return Object(R"({"metadata": {"name": ")" + name + R"(", "labels": )" + labels +
                R"(, "annotations": )" + annotations + "}}");
}

std::vector<std::string> Keys(const std::vector<runtime::Request>& requests) {
  std::vector<std::string> out;
  for (const runtime::Request& r : requests) out.push_back(r.Key());
  return out;
}

class PoolIndexTest : public ::testing::Test {
 protected:
  PoolIndexTest() {
    for (auto& [name, index] : PoolIndexes()) EXPECT_TRUE(pools_.AddIndex(name, index).ok());
    pools_.Upsert(Pool("a", "rack1", R"({"rack": "r1"})"));
    pools_.Upsert(Pool("a", "rack1-fast", R"({"rack": "r1", "disk": "nvme"})"));
    pools_.Upsert(Pool("b", "zone", R"({"zone": "z1"})"));
    pools_.Upsert(Pool("b", "rack2", R"({"rack": "r2"})"));
    pools_.Upsert(Pool("c", "everywhere", "{}"));
    nodes_.Upsert(Node("n1", R"({"rack": "r1", "zone": "z1"})"));
    nodes_.Upsert(Node("n2", R"({"rack": "r1", "disk": "nvme"})"));
    nodes_.Upsert(Node("n3", R"({"rack": "r2", "zone": "z2"})"));
  }
  runtime::Store pools_, nodes_;
};

TEST_F(PoolIndexTest, ThePoolsSelectingANodeAreThoseWhoseWholeSelectorMatches) {
  auto selecting = [&](const std::string& node) {
    std::vector<std::string> out;
    for (const auto& p : controllers::OwnersSelecting(
             pools_, controllers::IndexedSelectorKeys(pools_), *nodes_.Get(node)))
      out.push_back(p->Key());
    return out;
  };
  EXPECT_EQ(selecting("n1"), (std::vector<std::string>{"a/rack1", "b/zone", "c/everywhere"}))
      << "rack1-fast is filed under rack=r1 too, but names disk=nvme";
  EXPECT_EQ(selecting("n2"), (std::vector<std::string>{"a/rack1", "a/rack1-fast", "c/everywhere"}));
  EXPECT_EQ(selecting("n3"), (std::vector<std::string>{"b/rack2", "c/everywhere"}));
  EXPECT_EQ(controllers::IndexedSelectorKeys(pools_),
            (std::set<std::string>{"disk", "rack", "zone"}));
  // The index follows the store: a pool that changes its selector, one that goes.
  pools_.Upsert(Pool("b", "zone", R"({"zone": "z2"})"));
  pools_.Delete("c/everywhere");
  EXPECT_EQ(selecting("n1"), (std::vector<std::string>{"a/rack1"}));
  EXPECT_EQ(selecting("n3"), (std::vector<std::string>{"b/rack2", "b/zone"}));
  pools_.Delete("a/rack1-fast");
  EXPECT_EQ(controllers::IndexedSelectorKeys(pools_), (std::set<std::string>{"rack", "zone"}));
}

TEST_F(PoolIndexTest, ANodesChangeReachesThePoolsSelectingItAndThoseWhoseMarksItCarries) {
  const runtime::MapFunc of_node = EnqueuePoolsOfNode(pools_);
  EXPECT_EQ(Keys(of_node(*nodes_.Get("n3"))),
            (std::vector<std::string>{"b/rack2", "c/everywhere"}));
  // n3 no longer selected by a/rack1 (labels moved) but still carrying its track label and b's
  // upgrade annotation: both must hear of it to take them off.
  const runtime::ObjectPtr marked =
      Node("n3", R"({"rack": "r2", ")" + NodeTrackLabel("a", "rack1", "v1") + R"(": "true"})",
           R"({")" + NodeUpgradeAnnotation("b", "zone") + R"(": "{}"})");
  EXPECT_EQ(Keys(of_node(*marked)),
            (std::vector<std::string>{"a/rack1", "b/rack2", "b/zone", "c/everywhere"}));
  // Another pool's look-alike mark names no pool.
  EXPECT_EQ(Keys(of_node(*Node("n9", R"({"gwp.rdmastack.io/x.y.v1": "true"})"))),
            std::vector<std::string>{"c/everywhere"});
}

TEST_F(PoolIndexTest, AReportReachesThePoolsOfItsNodeAndAPoolsChangeThoseSharingItsNodes) {
  const runtime::MapFunc of_report = controllers::EnqueueOwnersOfRdmaNode(pools_, nodes_);
  EXPECT_EQ(Keys(of_report(*Object(R"({"metadata": {"name": "n2"}})"))),
            (std::vector<std::string>{"a/rack1", "a/rack1-fast", "c/everywhere"}));
  EXPECT_TRUE(of_report(*Object(R"({"metadata": {"name": "gone"}})")).empty())
      << "a report of a node the cache does not hold";
  const runtime::MapFunc sharing = EnqueuePoolsSharingNodes(pools_, nodes_);
  EXPECT_EQ(Keys(sharing(*pools_.Get("b/zone"))),
            (std::vector<std::string>{"a/rack1", "b/zone", "c/everywhere"}))
      << "zone=z1 is n1 only: rack2 (n3) and rack1-fast (n2) cannot collide with it";
  EXPECT_EQ(Keys(sharing(*Pool("d", "nowhere", R"({"rack": "r9"})"))), std::vector<std::string>{})
      << "a deleted pool on no node";
}

}  // namespace
}  // namespace rdmastack::gatewaypool
