#pragma once
// Which API path serves a kind. A static table covers the kinds rdmastack uses; an ad-hoc
// ResourceType (e.g. a test CRD) works the same way.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "operator/base/status.h"

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
const ResourceType& GatewayPool();
const ResourceType& ClientProfile();
const ResourceType& RdmaNode();
}  // namespace kinds

// Every entry of the static table.
const std::vector<ResourceType>& KnownResources();
// Lookup by apiVersion ("apps/v1", "v1") and kind. NotFound names the pair.
StatusOr<ResourceType> LookupResource(std::string_view api_version, std::string_view kind);
// Lookup for an object: uses its apiVersion and kind.
class JsonObject;
StatusOr<ResourceType> LookupResourceFor(const JsonObject& object);

// /api/v1/namespaces/<ns>/pods, or /api/v1/nodes for cluster-scoped kinds. An empty namespace on
// a namespaced kind means "all namespaces". Fails on a namespace for a cluster-scoped kind and on
// names that are not valid path segments.
StatusOr<std::string> CollectionPath(const ResourceType& type, std::string_view ns);
// CollectionPath + "/<name>" (+ "/<subresource>"). A namespaced kind needs a namespace here.
StatusOr<std::string> ObjectPath(const ResourceType& type, std::string_view ns,
                                 std::string_view name, std::string_view subresource = "");

}  // namespace rdmastack::k8s
