#pragma once
// Makes a JSON value valid against a structural schema (structural_schema.h), as far as the API
// server would check it, instead of letting the server refuse the whole write:
//
// - a string longer than maxLength is clipped on a UTF-8 boundary and ends in "… (N bytes cut)"
//   (cut without the marker when a pattern or enum must still match); bytes that are not UTF-8
//   become U+FFFD, as the server would store them;
// - a list keeps its first maxItems items, and the first of the items that share a list-map key
//   (or, for a set, a value): the lists the operator computes put what matters most first, and a
//   merge could pair one item's reason with another's message;
// - a number outside minimum/maximum or its int32 format is clamped to the bound;
// - a value that no change makes valid (wrong type, enum or pattern miss, too short, a bad
//   date-time, a missing required field, too few items) is removed: the field when it is
//   optional, else the list item or optional object that holds it, nearest first.
//
// Each change is returned as a SchemaFix: every one is a bug upstream that the caller logs.

#include <rapidjson/fwd.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "crds/schema/structural_schema.h"

namespace rdmastack::crd {

struct SchemaFix {
  std::string path;    // "status.failingNodes[3].message"
  std::string rule;    // "maxLength 1024"; empty for a removal that follows from another fix
  std::string action;  // "1077 bytes cut", "removed", ...
  friend bool operator==(const SchemaFix&, const SchemaFix&) = default;
};
using SchemaFixes = std::vector<SchemaFix>;

// Fits `value` (allocated from `allocator`) to `schema` in place; `path` names it in the fixes.
// An error when `value` itself cannot be made valid (nothing is left to write).
StatusOr<SchemaFixes> FitToSchema(
    const SchemaNode& schema, rapidjson::Value& value,
    rapidjson::MemoryPoolAllocator<rapidjson::CrtAllocator>& allocator, const std::string& path);

// "status.failingNodes[3].message (maxLength 1024): 1077 bytes cut; ..." for a log line.
std::string DescribeFixes(const SchemaFixes& fixes);

// The fixes without list positions and amounts ("status.failingNodes[].message maxLength 1024"),
// sorted and joined: the same for every pass that meets the same problem.
std::string FixSignature(const SchemaFixes& fixes);

}  // namespace rdmastack::crd
