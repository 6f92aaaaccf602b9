#pragma once
// backend.posix.pathTemplate: the gateway root directory on a node, with {nodeName}, {poolName}
// and {namespace} filled in (e.g. /lustre/agent/vol0/kvcache-s3-{nodeName}).

#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack::crd {

struct PathTemplateValues {
  std::string node_name;
  std::string pool_name;
  std::string namespace_;
};

// Fills the placeholders. Errors name the offending text: an unknown placeholder, an unclosed
// or stray brace, or a value that would leave the directory ('/' or "..").
StatusOr<std::string> RenderPathTemplate(std::string_view tmpl, const PathTemplateValues& values);

// Whether path equals dir or lies below it, comparing whole path segments.
bool PathIsWithin(std::string_view path, std::string_view dir);

// Whether any '/'-separated segment of path is "..".
bool HasDotDotSegment(std::string_view path);

}  // namespace rdmastack::crd
