// The fixtures are only worth their golden files if they are what the operator could write: every
// field of every GatewayPool, ClientProfile and RdmaNode fixture must be in the CRD's schema (name,
// type, enum, maxLength, maxItems, required), and must survive the typed round trip the plugin
// decodes with (so no field is silently dropped).
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "cli/kubectl-rdmastack/tests/fixtures.h"
#include "crds/types/json.h"
#include "crds/types/test_support.h"

namespace rdmastack::plugin {
namespace {

class SchemaChecker {
 public:
  void Check(const rapidjson::Value& v, const YAML::Node& schema, const std::string& path) {
    if (schema["x-kubernetes-int-or-string"]) {
      if (!v.IsInt64() && !v.IsString()) Error(path, "is neither an integer nor a string");
      return;
    }
    const std::string type = schema["type"] ? schema["type"].as<std::string>() : "";
    if (type == "object") {
      CheckObject(v, schema, path);
    } else if (type == "array") {
      if (!v.IsArray()) return Error(path, "is not an array");
      if (schema["maxItems"] && v.Size() > schema["maxItems"].as<unsigned>())
        Error(path, "has more items than maxItems");
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i)
        Check(v[i], schema["items"], path + "[" + std::to_string(i) + "]");
    } else if (type == "string") {
      if (!v.IsString()) return Error(path, "is not a string");
      const std::string s = v.GetString();
      if (schema["maxLength"] && s.size() > schema["maxLength"].as<size_t>())
        Error(path, "is longer than maxLength");
      if (schema["enum"]) {
        bool listed = false;
        for (const auto& e : schema["enum"]) listed = listed || e.as<std::string>() == s;
        if (!listed) Error(path, "\"" + s + "\" is not in the enum");
      }
    } else if (type == "integer") {
      if (!v.IsInt64()) Error(path, "is not an integer");
    } else if (type == "boolean") {
      if (!v.IsBool()) Error(path, "is not a boolean");
    } else {
      Error(path, "has a schema without a type the checker knows");
    }
  }

  const std::vector<std::string>& errors() const { return errors_; }

 private:
  void CheckObject(const rapidjson::Value& v, const YAML::Node& schema, const std::string& path) {
    if (!v.IsObject()) return Error(path, "is not an object");
    const YAML::Node properties = schema["properties"];
    const YAML::Node additional = schema["additionalProperties"];
    if (!properties && !additional) return;  // metadata: the apiserver's own schema
    for (const auto& m : v.GetObject()) {
      const std::string name = m.name.GetString();
      if (properties && properties[name]) {
        Check(m.value, properties[name], path + "." + name);
      } else if (additional && additional.IsMap()) {
        Check(m.value, additional, path + "." + name);
      } else {
        Error(path + "." + name, "is not in the schema");
      }
    }
    if (schema["required"]) {
      for (const auto& r : schema["required"]) {
        if (!v.HasMember(r.as<std::string>().c_str()))
          Error(path, "lacks required " + r.as<std::string>());
      }
    }
  }

  void Error(const std::string& path, const std::string& what) {
    errors_.push_back(path + " " + what);
  }

  std::vector<std::string> errors_;
};

YAML::Node SchemaOf(const std::string& crd_file) {
  const std::vector<YAML::Node> docs = crd::testing::LoadSourceYaml(crd_file);
  return docs.at(0)["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
}

template <crd::CustomResource T>
void ExpectFixturesMatch(const std::string& fixture, const std::string& crd_file) {
  const YAML::Node schema = SchemaOf(crd_file);
  const std::vector<k8s::JsonObject> items = testing::LoadFixtureItems(fixture);
  ASSERT_FALSE(items.empty()) << fixture;
  for (const k8s::JsonObject& item : items) {
    SchemaChecker checker;
    checker.Check(item.value(), schema, std::string(item.Name()));
    for (const std::string& e : checker.errors()) ADD_FAILURE() << fixture << ": " << e;

    auto typed = crd::ParseResource<T>(item.value());
    ASSERT_TRUE(typed.ok()) << fixture << " " << item.Name() << ": " << typed.status().ToString();
    auto back = k8s::JsonObject::Parse(crd::SerializeResource(*typed));
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(back->value() == item.value())
        << fixture << " " << item.Name() << " does not survive the typed round trip:\n"
        << back->SerializePretty();
  }
}

// The checker itself finds what it is there to find.
TEST(FixtureSchemaTest, CheckerRejectsWhatTheSchemaDoesNot) {
  k8s::JsonObject pool = testing::LoadFixtureItems("gatewaypools.json").front();
  ASSERT_TRUE(pool.SetString({"status", "nodeCounts", "readyNodes"}, "3").ok());
  ASSERT_TRUE(pool.SetString({"status", "conditions", "0", "status"}, "Maybe").ok());
  ASSERT_TRUE(pool.SetString({"status", "currentUpgrade", "phases", "done"}, "1").ok());
  ASSERT_TRUE(pool.Remove({"status", "failingNodes", "0", "reason"}));
  SchemaChecker checker;
  checker.Check(pool.value(), SchemaOf("crds/gatewaypools.yaml"), "archive");
  EXPECT_EQ(checker.errors(),
            (std::vector<std::string>{
                "archive.status.conditions[0].status \"Maybe\" is not in the enum",
                "archive.status.nodeCounts.readyNodes is not in the schema",
                "archive.status.failingNodes[0] lacks required reason",
                "archive.status.currentUpgrade.phases.done is not an integer",
            }));
}

TEST(FixtureSchemaTest, GatewayPools) {
  ExpectFixturesMatch<crd::GatewayPool>("gatewaypools.json", "crds/gatewaypools.yaml");
}

TEST(FixtureSchemaTest, ClientProfiles) {
  ExpectFixturesMatch<crd::ClientProfile>("clientprofiles.json", "crds/clientprofiles.yaml");
}

TEST(FixtureSchemaTest, RdmaNodes) {
  ExpectFixturesMatch<crd::RdmaNode>("rdmanodes.json", "crds/rdmanodes.yaml");
}

}  // namespace
}  // namespace rdmastack::plugin
