#include "crds/schema/structural_schema.h"

#include <set>

namespace rdmastack::crd {
namespace {

// Keywords that say nothing a value could break.
const std::set<std::string, std::less<>> kInert = {"description", "title", "example",
                                                   "x-kubernetes-preserve-unknown-fields"};
// Formats the fitter checks; any other is reported as unenforced.
const std::set<std::string, std::less<>> kEnforcedFormats = {"date-time", "int32", "int64"};

StatusOr<uint64_t> Count(const YAML::Node& node, const std::string& path) {
  try {
    return node.as<uint64_t>();
  } catch (const YAML::Exception&) {
    return InvalidArgumentError(path + ": not a non-negative integer: " + node.Scalar());
  }
}

StatusOr<double> Number(const YAML::Node& node, const std::string& path) {
  try {
    return node.as<double>();
  } catch (const YAML::Exception&) {
    return InvalidArgumentError(path + ": not a number: " + node.Scalar());
  }
}

std::string Join(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : path + "." + std::string(name);
}

}  // namespace

const SchemaNode* SchemaNode::Property(std::string_view name) const {
  auto it = properties.find(name);
  return it == properties.end() ? nullptr : &it->second;
}

bool SchemaNode::IsRequired(std::string_view name) const {
  for (const auto& r : required) {
    if (r == name) return true;
  }
  return false;
}

StatusOr<SchemaNode> ParseStructuralSchema(const YAML::Node& node, const std::string& path) {
  if (!node.IsMap()) return InvalidArgumentError(path + ": a schema must be a map");
  SchemaNode out;
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const YAML::Node& value = kv.second;
    if (kInert.count(key)) continue;
    if (key == "type") {
      out.type = value.Scalar();
    } else if (key == "x-kubernetes-int-or-string") {
      out.int_or_string = value.as<bool>(false);
    } else if (key == "nullable") {
      out.nullable = value.as<bool>(false);
    } else if (key == "format") {
      out.format = value.Scalar();
      if (!kEnforcedFormats.count(out.format)) out.unenforced.push_back("format " + out.format);
    } else if (key == "properties") {
      for (const auto& p : value) {
        const std::string name = p.first.Scalar();
        RDMASTACK_ASSIGN_OR_RETURN(SchemaNode child,
                                   ParseStructuralSchema(p.second, Join(path, name)));
        out.properties.emplace(name, std::move(child));
      }
    } else if (key == "required") {
      for (const auto& r : value) out.required.push_back(r.Scalar());
    } else if (key == "additionalProperties" && value.IsMap()) {
      RDMASTACK_ASSIGN_OR_RETURN(SchemaNode child, ParseStructuralSchema(value, path + "{}"));
      out.additional_properties = std::make_unique<SchemaNode>(std::move(child));
    } else if (key == "items") {
      RDMASTACK_ASSIGN_OR_RETURN(SchemaNode child, ParseStructuralSchema(value, path + "[]"));
      out.items = std::make_unique<SchemaNode>(std::move(child));
    } else if (key == "maxItems") {
      RDMASTACK_ASSIGN_OR_RETURN(out.max_items, Count(value, path + " maxItems"));
    } else if (key == "minItems") {
      RDMASTACK_ASSIGN_OR_RETURN(out.min_items, Count(value, path + " minItems"));
    } else if (key == "x-kubernetes-list-type") {
      out.list_type = value.Scalar();
    } else if (key == "x-kubernetes-list-map-keys") {
      for (const auto& k : value) out.list_map_keys.push_back(k.Scalar());
    } else if (key == "maxLength") {
      RDMASTACK_ASSIGN_OR_RETURN(out.max_length, Count(value, path + " maxLength"));
    } else if (key == "minLength") {
      RDMASTACK_ASSIGN_OR_RETURN(out.min_length, Count(value, path + " minLength"));
    } else if (key == "pattern") {
      out.pattern = value.Scalar();
      try {
        // The schema's patterns are RE2; the ones the CRDs use mean the same in ECMAScript.
        out.pattern_regex = std::make_shared<const std::regex>(out.pattern);
      } catch (const std::regex_error& e) {
        return InvalidArgumentError(path + ": pattern " + out.pattern + ": " + e.what());
      }
    } else if (key == "enum") {
      for (const auto& e : value) out.enum_values.push_back(e.Scalar());
    } else if (key == "minimum") {
      RDMASTACK_ASSIGN_OR_RETURN(out.minimum, Number(value, path + " minimum"));
    } else if (key == "maximum") {
      RDMASTACK_ASSIGN_OR_RETURN(out.maximum, Number(value, path + " maximum"));
    } else {
      out.unenforced.push_back(key);
    }
  }
  if (!out.enum_values.empty() && out.type != "string") out.unenforced.push_back("enum");
  if (out.list_type != "atomic" && out.list_type != "set" && out.list_type != "map")
    out.unenforced.push_back("x-kubernetes-list-type " + out.list_type);
  return out;
}

StatusOr<SchemaNode> ParseCrdSchema(std::string_view crd_yaml) {
  YAML::Node crd;
  try {
    crd = YAML::Load(std::string(crd_yaml));
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(std::string("CRD YAML: ") + e.what());
  }
  const YAML::Node versions = crd["spec"]["versions"];
  if (!versions.IsSequence() || versions.size() == 0)
    return InvalidArgumentError("CRD YAML: no spec.versions");
  const YAML::Node schema = versions[0]["schema"]["openAPIV3Schema"];
  if (!schema.IsMap()) return InvalidArgumentError("CRD YAML: no openAPIV3Schema");
  return ParseStructuralSchema(schema);
}

std::vector<std::string> UnenforcedKeywords(const SchemaNode& node, const std::string& path) {
  std::vector<std::string> out;
  for (const auto& k : node.unenforced) out.push_back(path + ": " + k);
  const auto add = [&](const SchemaNode& child, const std::string& child_path) {
    for (auto& k : UnenforcedKeywords(child, child_path)) out.push_back(std::move(k));
  };
  for (const auto& [name, child] : node.properties) add(child, Join(path, name));
  if (node.items) add(*node.items, path + "[]");
  if (node.additional_properties) add(*node.additional_properties, path + "{}");
  return out;
}

}  // namespace rdmastack::crd
