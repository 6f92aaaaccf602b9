#include "crds/schema/crd_schemas.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace rdmastack::crd {

// crd_documents.cc, generated from crds/*.yaml (CMakeLists.txt).
std::string_view BuiltInGatewayPoolCrd();
std::string_view BuiltInClientProfileCrd();
std::string_view BuiltInRdmaNodeCrd();

std::string_view CrdYaml(std::string_view kind) {
  if (kind == "GatewayPool") return BuiltInGatewayPoolCrd();
  if (kind == "ClientProfile") return BuiltInClientProfileCrd();
  if (kind == "RdmaNode") return BuiltInRdmaNodeCrd();
  return {};
}

const SchemaNode& StatusSchemaOf(std::string_view kind) {
  static const std::map<std::string, SchemaNode, std::less<>> schemas = [] {
    std::map<std::string, SchemaNode, std::less<>> out;
    for (const char* k : {"GatewayPool", "ClientProfile", "RdmaNode"}) {
      StatusOr<SchemaNode> root = ParseCrdSchema(CrdYaml(k));
      const SchemaNode* status = root.ok() ? root->Property("status") : nullptr;
      if (status == nullptr) {
        std::fprintf(stderr, "crd::StatusSchemaOf: the built-in %s CRD has no status schema: %s\n",
                     k, root.ok() ? "no properties.status" : root.status().ToString().c_str());
        std::abort();
      }
      out.emplace(k, std::move(root->properties.find("status")->second));
    }
    return out;
  }();
  static const SchemaNode kAnything;
  auto it = schemas.find(kind);
  return it == schemas.end() ? kAnything : it->second;
}

}  // namespace rdmastack::crd
