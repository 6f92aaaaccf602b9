#pragma once
// The deep copy that json_object.cc and json_builder.cc both write values with.

#include <rapidjson/document.h>

namespace rdmastack::k8s::internal {

// Like CopyFrom, but also copies strings that reference an in-situ parse buffer (RapidJSON 1.1
// shares those), so the copy never points into another document's memory.
rapidjson::Value DeepCopy(const rapidjson::Value& src, rapidjson::Document::AllocatorType& alloc);

}  // namespace rdmastack::k8s::internal
