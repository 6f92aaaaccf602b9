#include "operator/k8s/resource.h"

#include "operator/k8s/json_object.h"

namespace rdmastack::k8s {
namespace {

// A path segment must be a non-empty name without '/' and not "." or ".." (the API server
// refuses such names anyway; refusing here keeps a bad name from addressing another path).
Status CheckSegment(std::string_view what, std::string_view value) {
  if (value.empty()) return InvalidArgumentError(std::string(what) + " must not be empty");
  if (value == "." || value == ".." || value.find('/') != std::string_view::npos ||
      value.find('%') != std::string_view::npos || value.find('?') != std::string_view::npos) {
    return InvalidArgumentError(std::string(what) + " '" + std::string(value) +
                                "' is not a valid path segment");
  }
  return OkStatus();
}

}  // namespace

std::string ResourceType::ApiVersion() const {
  return group.empty() ? version : group + "/" + version;
}

std::string ResourceType::GroupVersionPath() const {
  return group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
}

std::string ResourceType::GroupResource() const {
  return group.empty() ? plural : plural + "." + group;
}

namespace kinds {
#define RDMASTACK_KIND(fn, group, version, kind, plural, namespaced)          \
  const ResourceType& fn() {                                                  \
    static const ResourceType type{group, version, kind, plural, namespaced}; \
    return type;                                                              \
  }
RDMASTACK_KIND(Namespace, "", "v1", "Namespace", "namespaces", false)
RDMASTACK_KIND(Node, "", "v1", "Node", "nodes", false)
RDMASTACK_KIND(Pod, "", "v1", "Pod", "pods", true)
RDMASTACK_KIND(Service, "", "v1", "Service", "services", true)
RDMASTACK_KIND(ConfigMap, "", "v1", "ConfigMap", "configmaps", true)
RDMASTACK_KIND(Secret, "", "v1", "Secret", "secrets", true)
RDMASTACK_KIND(ServiceAccount, "", "v1", "ServiceAccount", "serviceaccounts", true)
RDMASTACK_KIND(Event, "", "v1", "Event", "events", true)
RDMASTACK_KIND(DaemonSet, "apps", "v1", "DaemonSet", "daemonsets", true)
RDMASTACK_KIND(Deployment, "apps", "v1", "Deployment", "deployments", true)
RDMASTACK_KIND(Lease, "coordination.k8s.io", "v1", "Lease", "leases", true)
RDMASTACK_KIND(MutatingWebhookConfiguration, "admissionregistration.k8s.io", "v1",
               "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", false)
RDMASTACK_KIND(EventsV1, "events.k8s.io", "v1", "Event", "events", true)
RDMASTACK_KIND(TokenReview, "authentication.k8s.io", "v1", "TokenReview", "tokenreviews", false)
RDMASTACK_KIND(SubjectAccessReview, "authorization.k8s.io", "v1", "SubjectAccessReview",
               "subjectaccessreviews", false)
RDMASTACK_KIND(CustomResourceDefinition, "apiextensions.k8s.io", "v1", "CustomResourceDefinition",
               "customresourcedefinitions", false)
RDMASTACK_KIND(EndpointSlice, "discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", true)
#undef RDMASTACK_KIND
}  // namespace kinds

ResourceRegistry ResourceRegistry::BuiltIn() {
  ResourceRegistry registry;
  registry.types_ = {
      kinds::Namespace(),
      kinds::Node(),
      kinds::Pod(),
      kinds::Service(),
      kinds::ConfigMap(),
      kinds::Secret(),
      kinds::ServiceAccount(),
      kinds::Event(),
      kinds::DaemonSet(),
      kinds::Deployment(),
      kinds::Lease(),
      kinds::MutatingWebhookConfiguration(),
      kinds::EventsV1(),
      kinds::TokenReview(),
      kinds::SubjectAccessReview(),
      kinds::CustomResourceDefinition(),
      kinds::EndpointSlice(),
  };
  return registry;
}

Status ResourceRegistry::Add(const ResourceType& type) {
  for (const auto& known : types_) {
    if (known.kind != type.kind || known.ApiVersion() != type.ApiVersion()) continue;
    if (known == type) return OkStatus();
    return AlreadyExistsError(type.ApiVersion() + " " + type.kind +
                              " is registered already with other fields");
  }
  types_.push_back(type);
  return OkStatus();
}

StatusOr<ResourceType> ResourceRegistry::Lookup(std::string_view api_version,
                                                std::string_view kind) const {
  for (const auto& type : types_) {
    if (type.kind == kind && type.ApiVersion() == api_version) return type;
  }
  return NotFoundError("no API path known for apiVersion '" + std::string(api_version) +
                       "' kind '" + std::string(kind) + "'");
}

StatusOr<ResourceType> ResourceRegistry::LookupFor(const JsonObject& object) const {
  if (object.ApiVersion().empty() || object.Kind().empty()) {
    return InvalidArgumentError("object has no apiVersion/kind");
  }
  return Lookup(object.ApiVersion(), object.Kind());
}

StatusOr<std::string> CollectionPath(const ResourceType& type, std::string_view ns) {
  RDMASTACK_RETURN_IF_ERROR(CheckSegment("resource plural", type.plural));
  std::string path = type.GroupVersionPath();
  if (!ns.empty()) {
    if (!type.namespaced) {
      return InvalidArgumentError(type.kind + " is cluster-scoped; got namespace '" +
                                  std::string(ns) + "'");
    }
    RDMASTACK_RETURN_IF_ERROR(CheckSegment("namespace", ns));
    path += "/namespaces/";
    path += ns;
  }
  path += '/';
  path += type.plural;
  return path;
}

StatusOr<std::string> ObjectPath(const ResourceType& type, std::string_view ns,
                                 std::string_view name, std::string_view subresource) {
  if (type.namespaced && ns.empty()) {
    return InvalidArgumentError(type.kind + " '" + std::string(name) +
                                "' is namespaced; a namespace is required");
  }
  RDMASTACK_ASSIGN_OR_RETURN(std::string path, CollectionPath(type, ns));
  RDMASTACK_RETURN_IF_ERROR(CheckSegment(type.kind + " name", name));
  path += '/';
  path += name;
  if (!subresource.empty()) {
    RDMASTACK_RETURN_IF_ERROR(CheckSegment("subresource", subresource));
    path += '/';
    path += subresource;
  }
  return path;
}

}  // namespace rdmastack::k8s
