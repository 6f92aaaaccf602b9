#include "operator/runtime/instrumented_client.h"

#include "operator/k8s/api_error.h"

namespace rdmastack::runtime {

InstrumentedClient::InstrumentedClient(k8s::Client& inner, MetricsRegistry& metrics,
                                       std::string host, ApiReachability* reachability)
    : ForwardingClient(inner),
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

RequestKind InstrumentedClient::KindOf(const k8s::ApiCall& call) {
  switch (call.verb) {
    case k8s::ApiVerb::kGet:
    case k8s::ApiVerb::kList:
      // "" reads the latest state from storage; any resourceVersion may come from the watch cache.
      return call.resource_version.empty() ? RequestKind::kStorage : RequestKind::kCache;
    case k8s::ApiVerb::kWatch: return RequestKind::kCache;
    case k8s::ApiVerb::kCreate: {
      // A token request is answered without a write, and so are the reviews (TokenReview,
      // SubjectAccessReview): only sure signs of storage end an outage.
      if (!call.subresource.empty()) return RequestKind::kCache;
      const std::string& plural = call.type.plural;
      return plural.size() > 7 && plural.ends_with("reviews") ? RequestKind::kCache
                                                              : RequestKind::kStorage;
    }
    default: return RequestKind::kStorage;
  }
}

Status InstrumentedClient::Around(const k8s::ApiCall& call,
                                  const std::function<Status()>& call_inner) {
  const RequestKind kind = KindOf(call);
  const Clock::TimePoint begun =
      reachability_ != nullptr ? reachability_->Begin(kind) : Clock::TimePoint{};
  const Status status = call_inner();
  // The client does not report the exact success code: 201 for creates, 200 otherwise.
  const std::string code =
      status.ok() ? (call.verb == k8s::ApiVerb::kCreate ? "201" : "200") : CodeOf(status);
  requests_.With({code, k8s::HttpMethod(call.verb), host_}).Inc();
  if (reachability_ != nullptr) reachability_->End(kind, begun, status);
  return status;
}

}  // namespace rdmastack::runtime
