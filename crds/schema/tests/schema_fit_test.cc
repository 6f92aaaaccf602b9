// The fitter against the real CRD status schemas (crds/*.yaml as built in): each constraint form
// the status schemas carry, and what the fitter does when a value breaks it.
#include "crds/schema/schema_fit.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/utf8.h"
#include "crds/schema/crd_schemas.h"

namespace rdmastack::crd {
namespace {

const char kTime[] = "2026-12-01T08:12:11Z";

std::string ConditionJson(const std::string& type, const std::string& reason,
                          const std::string& message = "m") {
  return R"({"type":")" + type + R"(","status":"True","lastTransitionTime":")" + kTime +
         R"(","reason":")" + reason + R"(","message":")" + message + R"("})";
}

std::string Json(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return buffer.GetString();
}

// The status JSON of `kind` fitted, and the fixes it took.
struct Fitted {
  rapidjson::Document doc;
  SchemaFixes fixes;
  std::string error;
  std::string Text() const { return Json(doc); }
  const rapidjson::Value& operator[](const char* name) const { return doc[name]; }
};

Fitted Fit(const char* kind, const std::string& status_json) {
  Fitted out;
  out.doc.Parse(status_json.c_str());
  EXPECT_FALSE(out.doc.HasParseError()) << status_json;
  auto fixes = FitToSchema(StatusSchemaOf(kind), out.doc, out.doc.GetAllocator(), "status");
  if (fixes.ok()) {
    out.fixes = std::move(*fixes);
  } else {
    out.error = fixes.status().ToString();
  }
  return out;
}

// Fitting again changes nothing: what the writer sends is valid, and stays so.
void ExpectStable(const char* kind, const Fitted& once) {
  Fitted twice = Fit(kind, once.Text());
  EXPECT_TRUE(twice.fixes.empty()) << DescribeFixes(twice.fixes);
  EXPECT_EQ(twice.Text(), once.Text());
}

TEST(SchemaFitTest, AValidStatusIsLeftAsItIs) {
  const std::string status =
      R"({"observedGeneration":3,"conditions":[)" + ConditionJson("Ready", "GatewaysReady") +
      R"(],"library":"1.2.0.68","nodeCounts":{"selected":2,"readyOfSelected":"2/2"},)"
      R"("failingNodes":[{"node":"a","reason":"GatewayFailing","message":"é…","since":")" +
      kTime + R"("}]})";
  Fitted f = Fit("GatewayPool", status);
  EXPECT_TRUE(f.error.empty()) << f.error;
  EXPECT_TRUE(f.fixes.empty()) << DescribeFixes(f.fixes);
  rapidjson::Document want;
  want.Parse(status.c_str());
  EXPECT_EQ(f.Text(), Json(want));
}

TEST(SchemaFitTest, ALongMessageIsClippedOnACharacterBoundaryAndSaysSo) {
  // A gateway's log tail with two-byte characters: 1500 code points, 2500 bytes.
  std::string message;
  for (int i = 0; i < 500; ++i) message += "\xC3\xA9\xC3\xA9x";
  Fitted f =
      Fit("GatewayPool", R"({"failingNodes":[{"node":"a","reason":"GatewayFailing","message":")" +
                             message + R"("}]})");
  ASSERT_EQ(f.fixes.size(), 1u) << DescribeFixes(f.fixes);
  EXPECT_EQ(f.fixes[0].path, "status.failingNodes[0].message");
  EXPECT_EQ(f.fixes[0].rule, "maxLength 1024");
  const std::string got = f["failingNodes"][0]["message"].GetString();
  EXPECT_TRUE(IsValidUtf8(got));
  EXPECT_EQ(TextLength(got, TextUnit::kCodePoints), 1024u);
  EXPECT_EQ(got.substr(0, 20), message.substr(0, 20));
  EXPECT_NE(got.find("\xE2\x80\xA6 ("), std::string::npos) << got;
  EXPECT_EQ(got.substr(got.size() - 11), " bytes cut)") << got;
  ExpectStable("GatewayPool", f);
}

TEST(SchemaFitTest, ConditionMessagesHaveTheirOwnLongerLimit) {
  const std::string long_message(40000, 'm');
  Fitted f = Fit("ClientProfile",
                 R"({"conditions":[)" + ConditionJson("Ready", "NotReady", long_message) + "]}");
  ASSERT_EQ(f.fixes.size(), 1u) << DescribeFixes(f.fixes);
  EXPECT_EQ(f.fixes[0].rule, "maxLength 32768");
  EXPECT_EQ(f["conditions"][0]["message"].GetStringLength(), 32768u + 2);  // the ellipsis: 3 bytes
}

TEST(SchemaFitTest, AStringWithAPatternIsCutWithoutAMarker) {
  // A condition reason: maxLength 1024 and a CamelCase pattern that a marker would break.
  Fitted f = Fit("RdmaNode", R"({"conditions":[)" +
                                 ConditionJson("GatewayCapable", std::string(1100, 'R')) + "]}");
  ASSERT_EQ(f.fixes.size(), 1u) << DescribeFixes(f.fixes);
  EXPECT_EQ(f["conditions"][0]["reason"].GetString(), std::string(1024, 'R'));
  ExpectStable("RdmaNode", f);
}

TEST(SchemaFitTest, ARepeatedListMapKeyKeepsTheFirstItem) {
  Fitted f = Fit("GatewayPool", R"({"failingNodes":[
      {"node":"a","reason":"NewGatewayNotReady","message":"upgrade failed"},
      {"node":"b","reason":"GatewayFailing"},
      {"node":"a","reason":"GatewayNotScheduled","message":"no pod"}]})");
  ASSERT_EQ(f.fixes.size(), 1u) << DescribeFixes(f.fixes);
  EXPECT_EQ(f.fixes[0].path, "status.failingNodes[2]");
  EXPECT_EQ(f.fixes[0].rule, "x-kubernetes-list-type map");
  EXPECT_NE(f.fixes[0].action.find(R"({"node":"a"})"), std::string::npos) << f.fixes[0].action;
  ASSERT_EQ(f["failingNodes"].Size(), 2u);
  EXPECT_STREQ(f["failingNodes"][0]["reason"].GetString(), "NewGatewayNotReady");
  EXPECT_STREQ(f["failingNodes"][1]["node"].GetString(), "b");
  ExpectStable("GatewayPool", f);
}

TEST(SchemaFitTest, NestedListMapsAndConditionTypesAreKeyedToo) {
  Fitted f = Fit("RdmaNode", R"({"conditions":[)" + ConditionJson("Reporting", "Reporting") + "," +
                                 ConditionJson("Reporting", "Stale") + R"(],
      "devices":[{"name":"mlx5_0","ports":[{"number":1,"gids":[{"index":0},{"index":0}]}]}]})");
  ASSERT_EQ(f.fixes.size(), 2u) << DescribeFixes(f.fixes);
  EXPECT_EQ(f.fixes[0].path, "status.conditions[1]");
  EXPECT_EQ(f.fixes[1].path, "status.devices[0].ports[0].gids[1]");
  EXPECT_EQ(f["conditions"].Size(), 1u);
  EXPECT_STREQ(f["conditions"][0]["reason"].GetString(), "Reporting");
}

TEST(SchemaFitTest, AListKeepsItsFirstMaxItemsAndCountsTheRest) {
  std::string nodes;
  for (int i = 0; i < 40; ++i)
    nodes += (i ? "," : "") + std::string(R"({"node":"n)") + std::to_string(i) +
             R"(","reason":"GatewayFailing"})";
  Fitted f = Fit("GatewayPool", R"({"failingNodes":[)" + nodes + "]}");
  ASSERT_EQ(f.fixes.size(), 1u) << DescribeFixes(f.fixes);
  EXPECT_EQ(f.fixes[0].path, "status.failingNodes");
  EXPECT_EQ(f.fixes[0].rule, "maxItems 32");
  EXPECT_EQ(f.fixes[0].action, "8 items after the first 32 left out");
  ASSERT_EQ(f["failingNodes"].Size(), 32u);
  EXPECT_STREQ(f["failingNodes"][31]["node"].GetString(), "n31");
}

TEST(SchemaFitTest, NestedListsAreCappedToo) {
  Fitted f = Fit("ClientProfile", R"({"retiringNodes":[{"node":"g","phase":"HeldByPods",
      "pods":["p1","p2","p3","p4","p5","p6","p7"]}]})");
  ASSERT_EQ(f.fixes.size(), 1u) << DescribeFixes(f.fixes);
  EXPECT_EQ(f.fixes[0].path, "status.retiringNodes[0].pods");
  EXPECT_EQ(f["retiringNodes"][0]["pods"].Size(), 5u);
}

TEST(SchemaFitTest, AnOptionalFieldThatCannotBeValidIsRemoved) {
  Fitted f = Fit("RdmaNode", R"({"linkLayer":"Token Ring","agent":{"state":"Connected",
      "lastReportTime":"yesterday","version":"1.0"}})");
  EXPECT_EQ(DescribeFixes(f.fixes),
            "status.linkLayer (enum): \"Token Ring\": cannot be made valid; "
            "status.linkLayer: removed; "
            "status.agent.lastReportTime (format date-time): \"yesterday\": cannot be made valid; "
            "status.agent.lastReportTime: removed");
  EXPECT_FALSE(f.doc.HasMember("linkLayer"));
  EXPECT_FALSE(f["agent"].HasMember("lastReportTime"));
  EXPECT_STREQ(f["agent"]["version"].GetString(), "1.0");
  ExpectStable("RdmaNode", f);
}

TEST(SchemaFitTest, AnItemWhoseRequiredFieldCannotBeValidIsRemoved) {
  Fitted f =
      Fit("GatewayPool", R"({"conditions":[)" + ConditionJson("Ready", "GatewaysReady") + "," +
                             ConditionJson("Bad Type!", "X") + "," + ConditionJson("Degraded", "") +
                             R"(],"failingNodes":[{"node":"a"}]})");
  EXPECT_EQ(f["conditions"].Size(), 1u) << f.Text();
  EXPECT_STREQ(f["conditions"][0]["type"].GetString(), "Ready");
  EXPECT_EQ(f["failingNodes"].Size(), 0u);
  const std::string all = DescribeFixes(f.fixes);
  EXPECT_NE(all.find("status.conditions[1].type (pattern "), std::string::npos) << all;
  EXPECT_NE(all.find("status.conditions[1]: removed"), std::string::npos) << all;
  EXPECT_NE(all.find("status.conditions[2].reason (minLength 1)"), std::string::npos) << all;
  EXPECT_NE(all.find("status.failingNodes[0].reason (required): missing"), std::string::npos)
      << all;
  ExpectStable("GatewayPool", f);
}

TEST(SchemaFitTest, AnItemWithAValueOutsideItsEnumIsRemoved) {
  Fitted f = Fit("RdmaNode", R"({"checks":[{"id":"a","status":"Pass"},{"id":"b","status":"Maybe"}],
      "verdicts":{"gateway":{"capable":"Perhaps"},"hostMemory":{"capable":"Yes"}}})");
  EXPECT_EQ(f["checks"].Size(), 1u);
  EXPECT_FALSE(f["verdicts"].HasMember("gateway"));
  EXPECT_TRUE(f["verdicts"].HasMember("hostMemory"));
}

TEST(SchemaFitTest, NumbersOutsideTheirBoundsAreClamped) {
  Fitted f = Fit("GatewayPool",
                 R"({"conditions":[{"type":"Ready","status":"True","observedGeneration":-4,)"
                 R"("lastTransitionTime":"2026-12-01T08:12:11Z","reason":"R","message":""}],)"
                 R"("nodeCounts":{"selected":3000000000}})");
  EXPECT_EQ(DescribeFixes(f.fixes),
            "status.conditions[0].observedGeneration (minimum 0): -4 clamped to 0; "
            "status.nodeCounts.selected (format int32): 3000000000 clamped to 2147483647");
  EXPECT_EQ(f["conditions"][0]["observedGeneration"].GetInt64(), 0);
  EXPECT_EQ(f["nodeCounts"]["selected"].GetInt64(), 2147483647);
}

TEST(SchemaFitTest, WrongTypesAndNullsAreRemoved) {
  Fitted f = Fit("GatewayPool", R"({"library":12,"endpoints":null,"nodeCounts":{"ready":"3"}})");
  EXPECT_FALSE(f.doc.HasMember("library"));
  EXPECT_FALSE(f.doc.HasMember("endpoints"));
  EXPECT_FALSE(f["nodeCounts"].HasMember("ready"));
  EXPECT_EQ(f.fixes.size(), 6u) << DescribeFixes(f.fixes);
}

TEST(SchemaFitTest, BytesOutsideUtf8BecomeReplacementCharacters) {
  Fitted f = Fit("ClientProfile",
                 "{\"ineligibleNodes\":[{\"node\":\"g\",\"reason\":\"R\",\"message\":\"a\xC3\"}]}");
  ASSERT_EQ(f.fixes.size(), 1u) << DescribeFixes(f.fixes);
  EXPECT_EQ(f.fixes[0].rule, "UTF-8");
  EXPECT_STREQ(f["ineligibleNodes"][0]["message"].GetString(), "a\xEF\xBF\xBD");
}

TEST(SchemaFitTest, UnknownFieldsAreLeftForTheServerToPrune) {
  Fitted f = Fit("GatewayPool", R"({"somethingNew":{"x":1}})");
  EXPECT_TRUE(f.fixes.empty());
  EXPECT_TRUE(f.doc.HasMember("somethingNew"));
}

TEST(SchemaFitTest, AStatusThatIsNotAnObjectCannotBeFitted) {
  Fitted f = Fit("GatewayPool", "[]");
  EXPECT_NE(f.error.find("status (type object)"), std::string::npos) << f.error;
}

TEST(SchemaFitTest, TheSignatureIgnoresPositionsAndAmounts) {
  const SchemaFixes a = {{"status.failingNodes[3].message", "maxLength 1024", "900 bytes cut"}};
  const SchemaFixes b = {{"status.failingNodes[7].message", "maxLength 1024", "12 bytes cut"},
                         {"status.failingNodes[1].message", "maxLength 1024", "5 bytes cut"}};
  EXPECT_EQ(FixSignature(a), "status.failingNodes[].message maxLength 1024");
  EXPECT_EQ(FixSignature(a), FixSignature(b));
}

}  // namespace
}  // namespace rdmastack::crd
