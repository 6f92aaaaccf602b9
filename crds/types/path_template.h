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

// An absolute path as the kernel walks it, without looking at the disk: empty and "." components
// dropped ("//", "/./", a trailing '/'), each ".." taking the component before it away (at the
// root it stays at the root). A relative path is taken from the root. Symbolic links are not
// resolved: two spellings of one directory through a link stay different.
std::string LexicallyNormal(std::string_view path);

// Whether one of two absolute paths, normalised, equals or lies below the other.
bool PathsOverlap(std::string_view a, std::string_view b);

// Whether any '/'-separated segment of path is "..".
bool HasDotDotSegment(std::string_view path);

}  // namespace rdmastack::crd
