#include "controllers/common/node_label_keys.h"

#include <gtest/gtest.h>

#include "controllers/common/cache_transforms.h"

namespace rdmastack::controllers {
namespace {

runtime::ObjectPtr Owner(const std::string& json) {
  return std::make_shared<const k8s::JsonObject>(k8s::JsonObject::Parse(json).value());
}

TEST(NodeLabelKeysTest, TheKeysToKeepAreTheUnionOfTheLiveSelectorsKeys) {
  const std::vector<runtime::ObjectPtr> owners = {
      Owner(
          R"({"kind":"GatewayPool","spec":{"nodeSelector":{"node-role.rdmastack.io/storage":"true",
                "topology.kubernetes.io/zone":"a"}}})"),
      Owner(R"({"kind":"ClientProfile","spec":{"nodeSelector":{"nvidia.com/gpu.present":"true",
                "topology.kubernetes.io/zone":"b"}}})"),
      Owner(R"({"kind":"ClientProfile","spec":{"nodeSelector":{}}})"),
      Owner(R"({"kind":"GatewayPool","spec":{}})"),
  };
  EXPECT_EQ(LabelKeysToKeep(owners),
            (std::set<std::string>{"node-role.rdmastack.io/storage", "nvidia.com/gpu.present",
                                   "topology.kubernetes.io/zone"}));
  EXPECT_EQ(LabelKeysToKeep({}), std::set<std::string>{});
  EXPECT_EQ(SelectorKeys({{"a", "1"}, {"b", "2"}}), (std::set<std::string>{"a", "b"}));
}

TEST(NodeLabelKeysTest, TheOperatorsOwnDomainsAreAlwaysKeptAndNoOtherRdmastackDomain) {
  EXPECT_TRUE(IsOperatorNodeLabel("rdmastack.io/gateway-capable"));
  EXPECT_TRUE(IsOperatorNodeLabel("rdmastack.io/client.ml.train"));
  EXPECT_TRUE(IsOperatorNodeLabel("gwp.rdmastack.io/storage.kvcache.v1"));
  EXPECT_FALSE(IsOperatorNodeLabel("node-role.rdmastack.io/gpu"));
  EXPECT_FALSE(IsOperatorNodeLabel("kubernetes.io/hostname"));
  EXPECT_FALSE(IsOperatorNodeLabel("xrdmastack.io/a"));
}

TEST(NodeLabelKeysTest, KeysAreCoveredWhenKeptOrTheOperatorsOwn) {
  EXPECT_TRUE(KeysCovered({"zone"}, {"zone", "rdmastack.io/gpudirect"}));
  EXPECT_TRUE(KeysCovered({}, {}));
  EXPECT_FALSE(KeysCovered({"zone"}, {"zone", "rack"}));
}

TEST(NodeLabelKeysTest, TheNodeTransformKeepsExactlyTheKeptKeysAndTheOperatorsOwn) {
  auto node = k8s::JsonObject::Parse(R"({"apiVersion":"v1","kind":"Node",
      "metadata":{"name":"n1","uid":"u","resourceVersion":"7",
        "labels":{"kubernetes.io/hostname":"n1","zone":"a","rack":"r1","pad-01":"x",
                  "rdmastack.io/gateway-capable":"true","gwp.rdmastack.io/s.p.t":"true",
                  "node-role.rdmastack.io/gpu":"true"},
        "annotations":{"upgrade.gwp.rdmastack.io/s.p":"{}","other.io/x":"y"}},
      "spec":{"unschedulable":true,"podCIDR":"10.0.0.0/24"},
      "status":{"conditions":[{"type":"Ready","status":"True"}]}})")
                  .value();
  auto keys = std::make_shared<const std::set<std::string>>(std::set<std::string>{"zone", "nope"});
  const runtime::Transform t = NodeLabelsKeptAndOperatorAnnotations([&] { return keys; });
  const k8s::JsonObject out = t(node);
  EXPECT_EQ(out.Labels(),
            (std::map<std::string, std::string>{{"zone", "a"},
                                                {"rdmastack.io/gateway-capable", "true"},
                                                {"gwp.rdmastack.io/s.p.t", "true"}}));
  EXPECT_EQ(out.Annotations(),
            (std::map<std::string, std::string>{{"upgrade.gwp.rdmastack.io/s.p", "{}"}}));
  EXPECT_EQ(out.Name(), "n1");
  EXPECT_EQ(out.GetBool({"spec", "unschedulable"}), std::optional<bool>(true));
  EXPECT_FALSE(out.Has({"status"}));
  EXPECT_FALSE(out.Has({"spec", "podCIDR"}));

  // The keys are read as each object arrives.
  keys = std::make_shared<const std::set<std::string>>(std::set<std::string>{"rack", "pad-01"});
  EXPECT_EQ(t(node).Labels(),
            (std::map<std::string, std::string>{{"rack", "r1"},
                                                {"pad-01", "x"},
                                                {"rdmastack.io/gateway-capable", "true"},
                                                {"gwp.rdmastack.io/s.p.t", "true"}}));
}

}  // namespace
}  // namespace rdmastack::controllers
