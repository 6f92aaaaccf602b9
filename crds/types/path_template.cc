#include "crds/types/path_template.h"

#include <vector>

namespace rdmastack::crd {
namespace {

StatusOr<std::string_view> Lookup(std::string_view name, const PathTemplateValues& values) {
  const std::string* value = nullptr;
  if (name == "nodeName") value = &values.node_name;
  if (name == "poolName") value = &values.pool_name;
  if (name == "namespace") value = &values.namespace_;
  if (value == nullptr) {
    return InvalidArgumentError("unknown placeholder {" + std::string(name) +
                                "}; use {nodeName}, {poolName} or {namespace}");
  }
  // Object names cannot hold these, but a value must never steer the path out of its directory.
  if (value->empty() || value->find('/') != std::string::npos || *value == "." || *value == "..") {
    return InvalidArgumentError("value \"" + *value + "\" for {" + std::string(name) +
                                "} is not a single path segment");
  }
  return std::string_view(*value);
}

}  // namespace

StatusOr<std::string> RenderPathTemplate(std::string_view tmpl, const PathTemplateValues& values) {
  std::string out;
  size_t i = 0;
  while (i < tmpl.size()) {
    char c = tmpl[i];
    if (c == '}') return InvalidArgumentError("stray '}' at offset " + std::to_string(i));
    if (c != '{') {
      out += c;
      ++i;
      continue;
    }
    size_t close = tmpl.find('}', i);
    if (close == std::string_view::npos) {
      return InvalidArgumentError("unclosed '{' at offset " + std::to_string(i));
    }
    std::string_view name = tmpl.substr(i + 1, close - i - 1);
    if (name.find('{') != std::string_view::npos) {
      return InvalidArgumentError("nested '{' at offset " + std::to_string(i));
    }
    RDMASTACK_ASSIGN_OR_RETURN(std::string_view value, Lookup(name, values));
    out += value;
    i = close + 1;
  }
  return out;
}

bool PathIsWithin(std::string_view path, std::string_view dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  if (path.substr(0, dir.size()) != dir) return false;
  if (path.size() == dir.size() || dir == "/") return true;
  return path[dir.size()] == '/';
}

std::string LexicallyNormal(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(start, end - start);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    start = end + 1;
  }
  if (parts.empty()) return "/";
  std::string out;
  for (std::string_view part : parts) {
    out += '/';
    out += part;
  }
  return out;
}

bool PathsOverlap(std::string_view a, std::string_view b) {
  const std::string na = LexicallyNormal(a), nb = LexicallyNormal(b);
  return PathIsWithin(na, nb) || PathIsWithin(nb, na);
}

bool HasDotDotSegment(std::string_view path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (path.substr(start, end - start) == "..") return true;
    start = end + 1;
  }
  return false;
}

}  // namespace rdmastack::crd
