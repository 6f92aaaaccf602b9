#pragma once
// The deep copy that json_object.cc and json_builder.cc both write values with. Parsing (and the
// SAX handler that builds documents) is base/json_parse.h's.

#include <rapidjson/document.h>

#include "operator/k8s/json_object.h"

namespace rdmastack::k8s::internal {

// Like CopyFrom, but also copies strings that reference an in-situ parse buffer (RapidJSON 1.1
// shares those), so the copy never points into another document's memory.
rapidjson::Value DeepCopy(const rapidjson::Value& src, rapidjson::Document::AllocatorType& alloc);

}  // namespace rdmastack::k8s::internal
