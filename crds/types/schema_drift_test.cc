// Keeps crds/*.yaml (the source of truth) and the C++ types in step: the same field paths, the
// same enum values, and the same defaults.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

#include "crds/types/json.h"
#include "crds/types/json_codec.h"
#include "crds/types/test_support.h"

namespace rdmastack::crd {
namespace {

// field path ("spec.s3.port", "status.devices[].ports[].gids[].index") -> enum values, sorted
using PathMap = std::map<std::string, std::vector<std::string>>;

template <typename T>
void CollectCpp(const std::string& path, PathMap& out) {
  if constexpr (codec::IsOptional<T>::value) {
    CollectCpp<typename T::value_type>(path, out);
  } else if constexpr (codec::IsVector<T>::value) {
    if constexpr (fields::Described<typename T::value_type>) {
      CollectCpp<typename T::value_type>(path + "[]", out);
    } else {
      out[path] = {};
    }
  } else if constexpr (fields::Described<T>) {
    if constexpr (std::tuple_size_v<decltype(fields::FieldsOf<T>())> == 0) {
      out[path] = {};  // an object without fields (a mode marker such as hostDevice: {})
    } else {
      std::apply(
          [&](const auto&... f) {
            (CollectCpp<std::remove_cvref_t<decltype(std::declval<T>().*(f.member))>>(
                 codec::Join(path, f.name), out),
             ...);
          },
          fields::FieldsOf<T>());
    }
  } else if constexpr (NamedEnum<T>) {
    std::vector<std::string> names;
    for (const auto& e : EnumNames(T{})) names.emplace_back(e.name);
    std::sort(names.begin(), names.end());
    out[path] = names;
  } else {
    out[path] = {};
  }
}

bool IsYaml11Boolean(std::string word) {
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* b : {"y", "yes", "n", "no", "true", "false", "on", "off"}) {
    if (word == b) return true;
  }
  return false;
}

void CollectYaml(const YAML::Node& schema, const std::string& path, PathMap& out) {
  if (schema["properties"]) {
    for (const auto& kv : schema["properties"]) {
      CollectYaml(kv.second, codec::Join(path, kv.first.Scalar()), out);
    }
    return;
  }
  if (schema["type"] && schema["type"].Scalar() == "array" && schema["items"]["properties"]) {
    CollectYaml(schema["items"], path + "[]", out);
    return;
  }
  std::vector<std::string> names;
  if (schema["enum"]) {
    for (const auto& v : schema["enum"]) {
      names.push_back(v.Scalar());
      // yaml-cpp reads a plain Off as the string "Off"; the API server reads YAML 1.1, where it
      // is the boolean false, and refuses every status that says "Off".
      EXPECT_FALSE(v.Tag() == "?" && IsYaml11Boolean(v.Scalar()))
          << path << ": enum value " << v.Scalar()
          << " is a boolean to the API server (YAML 1.1); quote it";
    }
  }
  std::sort(names.begin(), names.end());
  out[path] = names;
}

// Schema defaults of scalar fields outside lists: path -> default as text.
void CollectDefaults(const YAML::Node& schema, const std::string& path,
                     std::map<std::string, std::string>& out) {
  if (schema["properties"]) {
    for (const auto& kv : schema["properties"]) {
      const YAML::Node& child = kv.second;
      // An optional object without a default is absent from a default-constructed C++ value.
      bool required = false;
      for (const auto& r : schema["required"])
        required = required || r.Scalar() == kv.first.Scalar();
      if (child["properties"] && !required && !child["default"]) continue;
      CollectDefaults(child, codec::Join(path, kv.first.Scalar()), out);
    }
  }
  if (schema["default"] && schema["default"].IsScalar()) out[path] = schema["default"].Scalar();
}

std::string JsonAt(const rapidjson::Value& root, const std::string& path) {
  const rapidjson::Value* v = &root;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string name =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!v->IsObject() || !v->HasMember(name.c_str())) return "<absent>";
    v = &(*v)[name.c_str()];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (v->IsString()) return v->GetString();
  if (v->IsBool()) return v->GetBool() ? "true" : "false";
  if (v->IsInt64()) return std::to_string(v->GetInt64());
  return "<not a scalar>";
}

YAML::Node VersionSchema(const std::string& file) {
  auto docs = testing::LoadSourceYaml("crds/" + file);
  return docs.at(0)["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
}

template <typename T>
void ExpectSameFields(const std::string& file) {
  YAML::Node schema = VersionSchema(file);
  PathMap yaml;
  CollectYaml(schema["properties"]["spec"], "spec", yaml);
  CollectYaml(schema["properties"]["status"], "status", yaml);
  PathMap cpp;
  using Spec = decltype(T::spec);
  using Status = typename decltype(T::status)::value_type;
  CollectCpp<Spec>("spec", cpp);
  CollectCpp<Status>("status", cpp);
  for (const auto& [path, names] : yaml) {
    auto it = cpp.find(path);
    if (it == cpp.end()) {
      ADD_FAILURE() << file << ": " << path << " is in the schema but not in the C++ type";
      continue;
    }
    EXPECT_EQ(it->second, names) << file << ": enum values of " << path << " differ";
  }
  for (const auto& [path, names] : cpp) {
    EXPECT_TRUE(yaml.count(path)) << file << ": " << path
                                  << " is in the C++ type but not in the schema";
  }
}

template <typename T>
void ExpectSameDefaults(const std::string& file) {
  std::map<std::string, std::string> defaults;
  CollectDefaults(VersionSchema(file)["properties"]["spec"], "spec", defaults);
  rapidjson::Document cpp;
  cpp.Parse(SerializeResource(T{}).c_str());
  for (const auto& [path, value] : defaults) {
    EXPECT_EQ(JsonAt(cpp, path), value) << file << ": default of " << path;
  }
}

TEST(SchemaDriftTest, GatewayPoolFields) {
  ExpectSameFields<GatewayPool>("gatewaypools.yaml");
}
TEST(SchemaDriftTest, ClientProfileFields) {
  ExpectSameFields<ClientProfile>("clientprofiles.yaml");
}
TEST(SchemaDriftTest, RdmaNodeFields) {
  ExpectSameFields<RdmaNode>("rdmanodes.yaml");
}

TEST(SchemaDriftTest, GatewayPoolDefaults) {
  ExpectSameDefaults<GatewayPool>("gatewaypools.yaml");
}
TEST(SchemaDriftTest, ClientProfileDefaults) {
  ExpectSameDefaults<ClientProfile>("clientprofiles.yaml");
}

TEST(SchemaDriftTest, EveryFieldHasADescription) {
  for (const char* file : {"gatewaypools.yaml", "clientprofiles.yaml", "rdmanodes.yaml"}) {
    std::vector<std::pair<YAML::Node, std::string>> stack{{VersionSchema(file), "<root>"}};
    while (!stack.empty()) {
      auto [node, path] = stack.back();
      stack.pop_back();
      if (path != "<root>.metadata") {
        EXPECT_TRUE(node["description"] && !node["description"].Scalar().empty())
            << file << ": " << path << " has no description";
      }
      if (node["properties"]) {
        for (const auto& kv : node["properties"])
          stack.emplace_back(kv.second, path + "." + kv.first.Scalar());
      }
      if (node["items"]) stack.emplace_back(node["items"], path + "[]");
    }
  }
}

}  // namespace
}  // namespace rdmastack::crd
