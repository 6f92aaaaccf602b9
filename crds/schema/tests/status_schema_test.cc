// The status schemas as the fitter sees them, and the typed front door the status writers use.
#include <gtest/gtest.h>

#include "crds/schema/crd_schemas.h"
#include "crds/schema/status_fit.h"

namespace rdmastack::crd {
namespace {

// Every constraint a status schema carries is one the fitter enforces: a CRD change that adds
// another (a CEL rule, a default, a new format) must teach the fitter first, or a status the
// server refuses could freeze `kubectl get` again.
TEST(StatusSchemaTest, TheFitterEnforcesEveryKeywordOfEveryStatusSchema) {
  for (const char* kind : {"GatewayPool", "ClientProfile", "RdmaNode"}) {
    const std::vector<std::string> unenforced = UnenforcedKeywords(StatusSchemaOf(kind), "status");
    std::string all;
    for (const auto& k : unenforced) all += "\n  " + k;
    EXPECT_TRUE(unenforced.empty()) << kind << ":" << all;
  }
}

// The rules on the whole object run on status writes too; they may read the old status but must
// constrain only what a status write cannot change.
TEST(StatusSchemaTest, RulesOnTheWholeObjectDoNotConstrainTheStatus) {
  for (const char* kind : {"GatewayPool", "ClientProfile", "RdmaNode"}) {
    const YAML::Node crd = YAML::Load(std::string(CrdYaml(kind)));
    const YAML::Node rules =
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["x-kubernetes-validations"];
    for (const auto& r : rules) {
      std::string rule = r["rule"].Scalar();
      for (size_t at; (at = rule.find("oldSelf")) != std::string::npos;) rule.erase(at, 7);
      EXPECT_EQ(rule.find("self.status"), std::string::npos) << kind << ": " << r["rule"].Scalar();
    }
  }
}

GatewayPool Pool(GatewayPoolStatus status) {
  GatewayPool pool;
  pool.metadata.name = "kvcache";
  pool.metadata.namespace_ = "storage";
  pool.status = std::move(status);
  return pool;
}

TEST(StatusSchemaTest, AValidStatusIsSentAsComputed) {
  GatewayPoolStatus s;
  s.observed_generation = 2;
  s.failing_nodes = {{"a", "GatewayFailing", "exit 1", std::nullopt}};
  auto fitted = FitStatusPatch(Pool(s));
  ASSERT_TRUE(fitted.ok()) << fitted.status().ToString();
  EXPECT_TRUE(fitted->fixes().empty());
  EXPECT_EQ(fitted->status(), s);
  EXPECT_EQ(fitted->patch(), SerializeStatusPatch(Pool(s)));
}

TEST(StatusSchemaTest, AnInvalidStatusIsSentFittedAndReadsBackAsTheServerWillHoldIt) {
  GatewayPoolStatus s;
  s.observed_generation = 2;
  s.failing_nodes = {{"a", "NewGatewayNotReady", std::string(3000, 'x'), std::nullopt},
                     {"a", "GatewayNotScheduled", "no pod", std::nullopt}};
  auto fitted = FitStatusPatch(Pool(s));
  ASSERT_TRUE(fitted.ok()) << fitted.status().ToString();
  EXPECT_EQ(fitted->fixes().size(), 2u) << DescribeFixes(fitted->fixes());
  ASSERT_EQ(fitted->status().failing_nodes.size(), 1u);
  EXPECT_EQ(fitted->status().failing_nodes[0].reason, "NewGatewayNotReady");
  EXPECT_LT(fitted->status().failing_nodes[0].message->size(), 1030u);
  EXPECT_EQ(fitted->status().observed_generation, 2);
  // The patch is the fitted status, and fitting that again changes nothing.
  EXPECT_EQ(fitted->patch(), SerializeStatusPatch(Pool(fitted->status())));
  auto again = FitStatusPatch(Pool(fitted->status()));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->fixes().empty()) << DescribeFixes(again->fixes());
  EXPECT_EQ(again->status(), fitted->status());
}

TEST(StatusSchemaTest, RdmaNodeAndClientProfileStatusesAreFittedToo) {
  RdmaNode node;
  node.metadata.name = "gpu-node-0";
  node.status.emplace();
  node.status->checks = {{"a", CheckStatus::kFail, "R", std::string(1500, 'm'), std::nullopt}};
  auto n = FitStatusPatch(node);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->fixes().size(), 1u) << DescribeFixes(n->fixes());

  ClientProfile profile;
  profile.metadata.name = "p";
  profile.metadata.namespace_ = "ml";
  profile.status.emplace();
  profile.status->ineligible_nodes = {{"g", "NoRdmaDevice", "x"}, {"g", "LinkDown", "y"}};
  auto p = FitStatusPatch(profile);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->status().ineligible_nodes.size(), 1u);
  EXPECT_EQ(p->status().ineligible_nodes[0].reason, "NoRdmaDevice");
}

TEST(StatusSchemaTest, APatchWithoutAStatusIsRefused) {
  EXPECT_FALSE(FitStatusPatch(GatewayPool{}).ok());
}

}  // namespace
}  // namespace rdmastack::crd
