#include "crds/types/test_support.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <cstdlib>

#include "tests/harness/cluster_env.h"

namespace rdmastack::crd::testing {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteScalar(const YAML::Node& node, Writer& w) {
  const std::string& s = node.Scalar();
  if (node.Tag() != "!") {  // plain scalar: resolve the core-schema types
    if (s == "true" || s == "false") return static_cast<void>(w.Bool(s == "true"));
    if (s == "null" || s == "~" || s.empty()) return static_cast<void>(w.Null());
    int64_t value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec == std::errc() && end == s.data() + s.size()) return static_cast<void>(w.Int64(value));
  }
  w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
}

void Write(const YAML::Node& node, Writer& w) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      w.StartObject();
      for (const auto& kv : node) {
        const std::string& key = kv.first.Scalar();
        w.Key(key.c_str(), static_cast<rapidjson::SizeType>(key.size()));
        Write(kv.second, w);
      }
      w.EndObject();
      return;
    case YAML::NodeType::Sequence:
      w.StartArray();
      for (const auto& item : node) Write(item, w);
      w.EndArray();
      return;
    case YAML::NodeType::Scalar: return WriteScalar(node, w);
    default: w.Null();
  }
}

}  // namespace

std::string YamlToJson(const YAML::Node& node) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  Write(node, w);
  return buffer.GetString();
}

std::vector<YAML::Node> LoadSourceYaml(const std::string& relative_path) {
  return YAML::LoadAllFromFile(::rdmastack::testing::SourcePath(relative_path));
}

YAML::Node FindKind(const std::vector<YAML::Node>& docs, const std::string& kind) {
  for (const YAML::Node& doc : docs) {
    if (doc["kind"] && doc["kind"].Scalar() == kind) return doc;
  }
  return YAML::Node(YAML::NodeType::Null);
}

}  // namespace rdmastack::crd::testing
