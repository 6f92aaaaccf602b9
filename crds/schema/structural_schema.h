#pragma once
// A CRD's structural schema (openAPIV3Schema) as a tree of the keywords the API server checks a
// value against. Read from the CRD files themselves (crd_schemas.h embeds them), so that what the
// operator checks is what the server checks. Keywords schema_fit.h does not enforce are kept by
// name in `unenforced`: a status schema must have none (status_schema_test.cc).

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack::crd {

struct SchemaNode {
  // object, array, string, integer, number, boolean; empty: any type (x-kubernetes-int-or-string
  // sets int_or_string instead).
  std::string type;
  bool int_or_string = false;
  bool nullable = false;
  std::string format;  // date-time, int32, int64 are enforced

  // Objects.
  std::map<std::string, SchemaNode, std::less<>> properties;
  std::vector<std::string> required;
  std::unique_ptr<SchemaNode> additional_properties;

  // Arrays. list_type is atomic (the default), set or map (unique list_map_keys).
  std::unique_ptr<SchemaNode> items;
  std::optional<uint64_t> max_items, min_items;
  std::string list_type = "atomic";
  std::vector<std::string> list_map_keys;

  // Strings. Lengths count code points, as the API server does.
  std::optional<uint64_t> max_length, min_length;
  std::string pattern;
  std::shared_ptr<const std::regex> pattern_regex;  // null without a pattern
  std::vector<std::string> enum_values;             // string enums only

  // Numbers.
  std::optional<double> minimum, maximum;

  // Keywords present here that the fitter does not enforce (x-kubernetes-validations, anyOf,
  // default, a format it does not know, ...), each as "keyword" or "keyword value".
  std::vector<std::string> unenforced;

  const SchemaNode* Property(std::string_view name) const;
  bool IsRequired(std::string_view name) const;
};

// The schema rooted at `node` (an openAPIV3Schema or any part of one); `path` names it in errors.
StatusOr<SchemaNode> ParseStructuralSchema(const YAML::Node& node, const std::string& path = "");

// The openAPIV3Schema of the first version of the CustomResourceDefinition in `crd_yaml`.
StatusOr<SchemaNode> ParseCrdSchema(std::string_view crd_yaml);

// Every keyword under `node` that the fitter does not enforce, as "path: keyword".
std::vector<std::string> UnenforcedKeywords(const SchemaNode& node, const std::string& path);

}  // namespace rdmastack::crd
