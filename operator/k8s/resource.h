#pragma once
// Which API path serves a kind. The built-in kinds rdmastack uses are here; an API package (the
// CRDs: crds/types/kinds.h) or a test adds its own to a ResourceRegistry, and an ad-hoc
// ResourceType works the same way without one.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack::k8s {

struct ResourceType {
  std::string group;    // "" for the core group
  std::string version;  // "v1", "v1alpha1"
  std::string kind;     // "Pod"
  std::string plural;   // "pods"
  bool namespaced = true;

  // "v1" for core, else "group/version".
  std::string ApiVersion() const;
  // "/api/v1" for core, else "/apis/<group>/<version>".
  std::string GroupVersionPath() const;
  // "pods" or "deployments.apps" (for messages and RBAC).
  std::string GroupResource() const;

  friend bool operator==(const ResourceType&, const ResourceType&) = default;
};

// The kinds we use. Event is core/v1; EventsV1 is events.k8s.io/v1 (kind "Event" too).
namespace kinds {
const ResourceType& Namespace();
const ResourceType& Node();
const ResourceType& Pod();
const ResourceType& Service();
const ResourceType& ConfigMap();
const ResourceType& Secret();
const ResourceType& ServiceAccount();
const ResourceType& Event();
const ResourceType& DaemonSet();
const ResourceType& Deployment();
const ResourceType& Lease();
const ResourceType& MutatingWebhookConfiguration();
const ResourceType& EventsV1();
const ResourceType& TokenReview();
const ResourceType& SubjectAccessReview();
const ResourceType& CustomResourceDefinition();
const ResourceType& EndpointSlice();
}  // namespace kinds

class JsonObject;

// The kinds a caller can name by apiVersion and kind (applying a manifest): the built-ins above
// plus what the caller adds. Each (apiVersion, kind) once.
class ResourceRegistry {
 public:
  // Every kind of kinds::.
  static ResourceRegistry BuiltIn();

  // Adds `type`; AlreadyExists when its (apiVersion, kind) is there with other fields.
  Status Add(const ResourceType& type);

  // Lookup by apiVersion ("apps/v1", "v1") and kind. NotFound names the pair.
  StatusOr<ResourceType> Lookup(std::string_view api_version, std::string_view kind) const;
  // Lookup for an object: uses its apiVersion and kind.
  StatusOr<ResourceType> LookupFor(const JsonObject& object) const;

  const std::vector<ResourceType>& types() const { return types_; }

 private:
  std::vector<ResourceType> types_;
};

// /api/v1/namespaces/<ns>/pods, or /api/v1/nodes for cluster-scoped kinds. An empty namespace on
// a namespaced kind means "all namespaces". Fails on a namespace for a cluster-scoped kind and on
// names that are not valid path segments.
StatusOr<std::string> CollectionPath(const ResourceType& type, std::string_view ns);
// CollectionPath + "/<name>" (+ "/<subresource>"). A namespaced kind needs a namespace here.
StatusOr<std::string> ObjectPath(const ResourceType& type, std::string_view ns,
                                 std::string_view name, std::string_view subresource = "");

}  // namespace rdmastack::k8s
