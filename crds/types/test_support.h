#pragma once
// Helpers for the crd_types tests: YAML documents (samples, CRDs) as JSON, and source paths.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace rdmastack::crd::testing {

// YAML node -> JSON text. Quoted scalars stay strings; plain ones become booleans, integers or
// null when they read as such (YAML 1.2 core schema).
std::string YamlToJson(const YAML::Node& node);

// Every document of a YAML file under the source tree (RDMASTACK_SOURCE_DIR).
std::vector<YAML::Node> LoadSourceYaml(const std::string& relative_path);

// The document of the given kind (first match); a null node when there is none.
YAML::Node FindKind(const std::vector<YAML::Node>& docs, const std::string& kind);

}  // namespace rdmastack::crd::testing
