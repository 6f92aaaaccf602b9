#include "cli/kubectl-rdmastack/snapshot.h"

#include <algorithm>

#include "crds/types/json.h"

namespace rdmastack::plugin {
namespace {

template <crd::CustomResource T>
void DecodeAll(const std::vector<k8s::JsonObject>& objects, std::vector<T>& out,
               std::vector<std::string>& warnings) {
  for (const k8s::JsonObject& object : objects) {
    StatusOr<T> decoded = crd::ParseResource<T>(object.value());
    if (!decoded.ok()) {
      warnings.push_back("skipped " + std::string(crd::KindOf<T>()) + " " + object.Key() + ": " +
                         decoded.status().message());
      continue;
    }
    out.push_back(std::move(*decoded));
  }
  std::sort(out.begin(), out.end(), [](const T& a, const T& b) {
    const std::string& a_ns = a.metadata.namespace_ ? *a.metadata.namespace_ : "";
    const std::string& b_ns = b.metadata.namespace_ ? *b.metadata.namespace_ : "";
    if (a_ns != b_ns) return a_ns < b_ns;
    return a.metadata.name < b.metadata.name;
  });
}

}  // namespace

Snapshot DecodeSnapshot(const std::vector<k8s::JsonObject>& pools,
                        const std::vector<k8s::JsonObject>& profiles,
                        const std::vector<k8s::JsonObject>& nodes) {
  Snapshot s;
  DecodeAll(pools, s.pools, s.warnings);
  DecodeAll(profiles, s.profiles, s.warnings);
  DecodeAll(nodes, s.nodes, s.warnings);
  return s;
}

std::optional<crd::GatewayPool> DecodePool(const k8s::JsonObject& object,
                                           std::vector<std::string>& warnings) {
  std::vector<crd::GatewayPool> out;
  DecodeAll(std::vector<k8s::JsonObject>{object}, out, warnings);
  if (out.empty()) return std::nullopt;
  return std::move(out.front());
}

NodeInfo DecodeNode(const k8s::JsonObject& node) {
  return {std::string(node.Name()), node.Labels(), node.Annotations()};
}

std::string QualifiedName(const crd::ObjectMeta& meta) {
  return k8s::ObjectKey(meta.namespace_.value_or(""), meta.name);
}

}  // namespace rdmastack::plugin
