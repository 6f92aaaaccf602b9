#pragma once
// RFC 6902 JSON Patch (add, remove, replace, move, copy, test) on a JsonObject, for the fake
// client's application/json-patch+json requests.

#include <string_view>

#include "base/status.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::k8s::testing {

// Applies every operation of `patch` (a JSON array) to `target` in order, or none: on an error
// (a failed test, a path that does not exist) `target` is left as it was.
Status ApplyJsonPatch(std::string_view patch, JsonObject& target);

}  // namespace rdmastack::k8s::testing
