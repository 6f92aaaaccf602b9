#include "crds/schema/structural_schema.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "crds/schema/crd_schemas.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::crd {
namespace {

SchemaNode Parse(const std::string& yaml) {
  auto parsed = ParseStructuralSchema(YAML::Load(yaml));
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? std::move(*parsed) : SchemaNode{};
}

TEST(StructuralSchemaTest, ReadsTheKeywordsTheFitterEnforces) {
  const SchemaNode s = Parse(R"(
type: object
required: [items]
properties:
  items:
    type: array
    maxItems: 4
    minItems: 1
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [node]
    items:
      type: object
      properties:
        node: {type: string, maxLength: 253, minLength: 1, pattern: '^[a-z]+$'}
        phase: {type: string, enum: [A, B]}
        since: {type: string, format: date-time}
        count: {type: integer, format: int32, minimum: 0, maximum: 10}
)");
  EXPECT_EQ(s.type, "object");
  EXPECT_TRUE(s.IsRequired("items"));
  const SchemaNode* items = s.Property("items");
  ASSERT_NE(items, nullptr);
  EXPECT_EQ(items->max_items, 4u);
  EXPECT_EQ(items->min_items, 1u);
  EXPECT_EQ(items->list_type, "map");
  EXPECT_EQ(items->list_map_keys, std::vector<std::string>{"node"});
  ASSERT_NE(items->items, nullptr);
  const SchemaNode* node = items->items->Property("node");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->max_length, 253u);
  EXPECT_EQ(node->min_length, 1u);
  ASSERT_NE(node->pattern_regex, nullptr);
  EXPECT_EQ(items->items->Property("phase")->enum_values, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(items->items->Property("count")->maximum, 10.0);
  EXPECT_TRUE(UnenforcedKeywords(s, "root").empty());
}

TEST(StructuralSchemaTest, NamesWhatItDoesNotEnforce) {
  const SchemaNode s = Parse(R"(
type: object
properties:
  a:
    type: string
    format: uuid
    x-kubernetes-validations: [{rule: self != ''}]
  b:
    anyOf: [{type: integer}, {type: string}]
    x-kubernetes-int-or-string: true
    default: 1
)");
  EXPECT_EQ(UnenforcedKeywords(s, "root"),
            (std::vector<std::string>{"root.a: format uuid", "root.a: x-kubernetes-validations",
                                      "root.b: anyOf", "root.b: default"}));
}

TEST(StructuralSchemaTest, RefusesAPatternThatDoesNotCompile) {
  auto parsed = ParseStructuralSchema(YAML::Load("{type: string, pattern: '(['}"), "x");
  EXPECT_FALSE(parsed.ok());
}

// The operator checks statuses against the CRDs it was built with; the chart installs crds/.
TEST(StructuralSchemaTest, TheBuiltInCrdsAreTheSourceFiles) {
  const std::pair<const char*, const char*> kFiles[] = {
      {"GatewayPool", "crds/gatewaypools.yaml"},
      {"ClientProfile", "crds/clientprofiles.yaml"},
      {"RdmaNode", "crds/rdmanodes.yaml"}};
  for (const auto& [kind, file] : kFiles) {
    std::ifstream in(::rdmastack::testing::SourcePath(file));
    std::stringstream source;
    source << in.rdbuf();
    EXPECT_EQ(CrdYaml(kind), source.str()) << kind << " is built in from an older " << file;
    auto parsed = ParseCrdSchema(CrdYaml(kind));
    ASSERT_TRUE(parsed.ok()) << kind << ": " << parsed.status().ToString();
    EXPECT_NE(parsed->Property("spec"), nullptr) << kind;
    EXPECT_EQ(StatusSchemaOf(kind).type, "object") << kind;
  }
  EXPECT_TRUE(CrdYaml("Pod").empty());
}

}  // namespace
}  // namespace rdmastack::crd
