#pragma once
// The rdmastack CRDs (crds/*.yaml) as compiled into this binary, and their status schemas: the
// schemas the API server checks every status write against.

#include <string_view>

#include "crds/schema/structural_schema.h"

namespace rdmastack::crd {

// The CRD file of `kind` (GatewayPool, ClientProfile, RdmaNode) as built in; empty for another.
std::string_view CrdYaml(std::string_view kind);

// The status schema of `kind`. The CRDs are compiled in and every unit test run parses them, so
// one that does not parse is a build defect: the process aborts, naming it. An unknown kind gets
// an empty schema, which accepts anything.
const SchemaNode& StatusSchemaOf(std::string_view kind);

}  // namespace rdmastack::crd
