#include "operator/runtime/instrumented_client.h"

#include "operator/k8s/api_error.h"

namespace rdmastack::runtime {

InstrumentedClient::InstrumentedClient(k8s::Client& inner, MetricsRegistry& metrics,
                                       std::string host, ApiReachability* reachability)
    : inner_(inner),
      requests_(metrics.CounterFamily(
          "rest_client_requests_total",
          "Number of HTTP requests, partitioned by status code, method, and host",
          {"code", "method", "host"})),
      host_(std::move(host)),
      reachability_(reachability) {}

std::string InstrumentedClient::CodeOf(const Status& status) {
  const auto api = k8s::GetApiError(status);
  return api && api->http_code > 0 ? std::to_string(api->http_code) : "<error>";
}

RequestKind InstrumentedClient::CreateKind(const k8s::ResourceType& type) {
  const bool review = type.plural.size() > 7 && type.plural.ends_with("reviews");
  return review ? RequestKind::kCache : RequestKind::kStorage;
}

void InstrumentedClient::Record(const std::string& method, const std::string& code) {
  requests_.With({code, method, host_}).Inc();
}

StatusOr<k8s::JsonObject> InstrumentedClient::Get(const k8s::ResourceType& type,
                                                  std::string_view ns, std::string_view name,
                                                  const k8s::GetOptions& options) {
  return Count("GET", "200", ReadKind(options.resource_version),
               [&] { return inner_.Get(type, ns, name, options); });
}

StatusOr<k8s::ObjectList> InstrumentedClient::List(const k8s::ResourceType& type,
                                                   std::string_view ns,
                                                   const k8s::ListOptions& options) {
  return Count("GET", "200", ReadKind(options.resource_version),
               [&] { return inner_.List(type, ns, options); });
}

StatusOr<k8s::WatchStreamPtr> InstrumentedClient::Watch(const k8s::ResourceType& type,
                                                        std::string_view ns,
                                                        const k8s::WatchOptions& options) {
  return Count("GET", "200", RequestKind::kCache, [&] { return inner_.Watch(type, ns, options); });
}

StatusOr<k8s::JsonObject> InstrumentedClient::Create(const k8s::ResourceType& type,
                                                     const k8s::JsonObject& object,
                                                     const k8s::WriteOptions& options) {
  return Count("POST", "201", CreateKind(type),
               [&] { return inner_.Create(type, object, options); });
}

StatusOr<k8s::JsonObject> InstrumentedClient::Update(const k8s::ResourceType& type,
                                                     const k8s::JsonObject& object,
                                                     const k8s::WriteOptions& options) {
  return Count("PUT", "200", RequestKind::kStorage,
               [&] { return inner_.Update(type, object, options); });
}

StatusOr<k8s::JsonObject> InstrumentedClient::UpdateStatus(const k8s::ResourceType& type,
                                                           const k8s::JsonObject& object,
                                                           const k8s::WriteOptions& options) {
  return Count("PUT", "200", RequestKind::kStorage,
               [&] { return inner_.UpdateStatus(type, object, options); });
}

StatusOr<k8s::JsonObject> InstrumentedClient::Patch(const k8s::ResourceType& type,
                                                    std::string_view ns, std::string_view name,
                                                    k8s::PatchType patch_type,
                                                    std::string_view body,
                                                    const k8s::PatchOptions& options) {
  return Count("PATCH", "200", RequestKind::kStorage,
               [&] { return inner_.Patch(type, ns, name, patch_type, body, options); });
}

StatusOr<k8s::JsonObject> InstrumentedClient::PatchStatus(
    const k8s::ResourceType& type, std::string_view ns, std::string_view name,
    k8s::PatchType patch_type, std::string_view body, const k8s::PatchOptions& options) {
  return Count("PATCH", "200", RequestKind::kStorage,
               [&] { return inner_.PatchStatus(type, ns, name, patch_type, body, options); });
}

StatusOr<k8s::JsonObject> InstrumentedClient::Delete(const k8s::ResourceType& type,
                                                     std::string_view ns, std::string_view name,
                                                     const k8s::DeleteOptions& options) {
  return Count("DELETE", "200", RequestKind::kStorage,
               [&] { return inner_.Delete(type, ns, name, options); });
}

StatusOr<k8s::JsonObject> InstrumentedClient::CreateSubresource(const k8s::ResourceType& type,
                                                                std::string_view ns,
                                                                std::string_view name,
                                                                std::string_view subresource,
                                                                const k8s::JsonObject& body) {
  // A token request is answered without a write: only sure signs of storage end an outage.
  return Count("POST", "201", RequestKind::kCache,
               [&] { return inner_.CreateSubresource(type, ns, name, subresource, body); });
}

}  // namespace rdmastack::runtime
