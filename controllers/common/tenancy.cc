#include "controllers/common/tenancy.h"

#include <algorithm>

#include "crds/types/path_template.h"
#include "crds/types/validate.h"

namespace rdmastack::controllers {
namespace {

// Splits "[NAMESPACE=]PREFIX". A namespace is a DNS label, so the first '=' ends it; an image or
// path has no '=' before its first '/'.
TenancyRule Split(std::string_view text) {
  const size_t eq = text.find('=');
  const size_t slash = text.find('/');
  if (eq == std::string_view::npos || (slash != std::string_view::npos && slash < eq))
    return {"", std::string(text)};
  return {std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

// Path components: none empty (no "//"), none "." or "..".
bool CleanAbsolutePath(std::string_view path) {
  if (path.empty() || path.front() != '/') return false;
  if (path == "/") return true;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(start, end - start);
    // A trailing '/' leaves one empty last part, which is fine.
    if (part.empty() && end != path.size()) return false;
    if (part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

// The rules that apply in `ns`, as "a, b" for a message; "none" when there are none.
std::string Allowed(const std::vector<TenancyRule>& rules, std::string_view ns) {
  std::string out;
  for (const auto& r : rules) {
    if (!r.namespace_.empty() && r.namespace_ != ns) continue;
    out += (out.empty() ? "" : ", ") + r.prefix;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

Status CheckNamespaceName(std::string_view name) {
  if (crd::IsDnsLabel(name)) return OkStatus();
  return InvalidArgumentError("namespace '" + std::string(name) +
                              "' is not a DNS label (lower-case letters, digits and '-', 63 at "
                              "most, starting and ending with a letter or digit)");
}

std::optional<std::string> CheckNamespace(const TenancyPolicy& policy, std::string_view ns,
                                          std::string_view kind) {
  if (policy.namespaces.empty() ||
      std::find(policy.namespaces.begin(), policy.namespaces.end(), ns) != policy.namespaces.end())
    return std::nullopt;
  std::string served;
  for (const auto& n : policy.namespaces) served += (served.empty() ? "" : ", ") + n;
  return "the operator serves " + std::string(kind) + "s only in namespaces " + served +
         " (its RBAC reaches Secrets and owned objects there only); create this " +
         std::string(kind) + " in one of them, or ask the admin to add namespace " +
         std::string(ns) + " (chart: tenancy.namespaces, flag --tenant-namespace)";
}

StatusOr<TenancyRule> ParseImageRule(std::string_view text) {
  TenancyRule rule = Split(text);
  if (rule.prefix.empty()) return InvalidArgumentError("an image prefix is empty");
  const char last = rule.prefix.back();
  if (last != '/' && last != ':' && last != '@') {
    return InvalidArgumentError(
        "image prefix '" + rule.prefix +
        "' must end in '/', ':' or '@' (e.g. registry.example.com/nvidia/)");
  }
  return rule;
}

StatusOr<TenancyRule> ParseBackendPathRule(std::string_view text) {
  TenancyRule rule = Split(text);
  if (!CleanAbsolutePath(rule.prefix)) {
    return InvalidArgumentError("backend path '" + rule.prefix +
                                "' must be absolute, without '.', '..' or empty components");
  }
  return rule;
}

std::optional<std::string> CheckImage(const TenancyPolicy& policy, std::string_view ns,
                                      std::string_view field, std::string_view image) {
  if (policy.images.empty()) return std::nullopt;
  for (const auto& r : policy.images) {
    if (!r.namespace_.empty() && r.namespace_ != ns) continue;
    if (image.substr(0, r.prefix.size()) == r.prefix) return std::nullopt;
  }
  return std::string(field) + " " + std::string(image) +
         " is not from a registry the operator allows in namespace " + std::string(ns) +
         " (allowed: " + Allowed(policy.images, ns) +
         "); use an image from one of them, or ask the admin to allow it (--allow-image)";
}

std::optional<std::string> CheckBackendPath(const TenancyPolicy& policy, std::string_view ns,
                                            std::string_view field, std::string_view path) {
  if (policy.backend_paths.empty()) return std::nullopt;
  if (CleanAbsolutePath(path)) {
    for (const auto& r : policy.backend_paths) {
      if (!r.namespace_.empty() && r.namespace_ != ns) continue;
      if (crd::PathIsWithin(path, r.prefix)) return std::nullopt;
    }
  }
  return std::string(field) + " " + std::string(path) +
         " is not inside a host directory the operator allows in namespace " + std::string(ns) +
         " (allowed: " + Allowed(policy.backend_paths, ns) +
         "); serve a directory under one of them, or ask the admin to allow it "
         "(--allow-backend-path)";
}

}  // namespace rdmastack::controllers
