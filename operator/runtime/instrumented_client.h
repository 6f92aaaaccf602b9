#pragma once
// A k8s::Client decorator that counts requests in rest_client_requests_total{code,method,host}
// (client-go's metric). code is the HTTP status, or "<error>" when no response came back; a
// successful call is counted as 201 for creates and 200 otherwise (the client does not report
// the exact success code). With an ApiReachability, it also tells it whether each request was
// answered, and whether the answer needed the server's storage (api_reachability.h).

#include <string>

#include "operator/k8s/client.h"
#include "operator/runtime/api_reachability.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::runtime {

class InstrumentedClient final : public k8s::Client {
 public:
  InstrumentedClient(k8s::Client& inner, MetricsRegistry& metrics, std::string host,
                     ApiReachability* reachability = nullptr);

  StatusOr<k8s::JsonObject> Get(const k8s::ResourceType& type, std::string_view ns,
                                std::string_view name, const k8s::GetOptions& options) override;
  StatusOr<k8s::ObjectList> List(const k8s::ResourceType& type, std::string_view ns,
                                 const k8s::ListOptions& options) override;
  StatusOr<k8s::WatchStreamPtr> Watch(const k8s::ResourceType& type, std::string_view ns,
                                      const k8s::WatchOptions& options) override;
  StatusOr<k8s::JsonObject> Create(const k8s::ResourceType& type, const k8s::JsonObject& object,
                                   const k8s::WriteOptions& options) override;
  StatusOr<k8s::JsonObject> Update(const k8s::ResourceType& type, const k8s::JsonObject& object,
                                   const k8s::WriteOptions& options) override;
  StatusOr<k8s::JsonObject> UpdateStatus(const k8s::ResourceType& type,
                                         const k8s::JsonObject& object,
                                         const k8s::WriteOptions& options) override;
  StatusOr<k8s::JsonObject> Patch(const k8s::ResourceType& type, std::string_view ns,
                                  std::string_view name, k8s::PatchType patch_type,
                                  std::string_view body, const k8s::PatchOptions& options) override;
  StatusOr<k8s::JsonObject> PatchStatus(const k8s::ResourceType& type, std::string_view ns,
                                        std::string_view name, k8s::PatchType patch_type,
                                        std::string_view body,
                                        const k8s::PatchOptions& options) override;
  StatusOr<k8s::JsonObject> Delete(const k8s::ResourceType& type, std::string_view ns,
                                   std::string_view name,
                                   const k8s::DeleteOptions& options) override;
  StatusOr<k8s::JsonObject> CreateSubresource(const k8s::ResourceType& type, std::string_view ns,
                                              std::string_view name, std::string_view subresource,
                                              const k8s::JsonObject& body) override;

 private:
  template <typename Call>
  auto Count(const char* method, const char* success_code, RequestKind kind, Call&& call) {
    const Clock::TimePoint begun =
        reachability_ != nullptr ? reachability_->Begin(kind) : Clock::TimePoint{};
    auto result = call();
    Record(method, result.ok() ? success_code : CodeOf(result.status()));
    if (reachability_ != nullptr) reachability_->End(kind, begun, result.status());
    return result;
  }
  // Reviews (TokenReview, SubjectAccessReview) are answered without storage.
  static RequestKind CreateKind(const k8s::ResourceType& type);
  // "" reads the latest state from storage; any resourceVersion may come from the watch cache.
  static RequestKind ReadKind(const std::string& resource_version) {
    return resource_version.empty() ? RequestKind::kStorage : RequestKind::kCache;
  }
  static std::string CodeOf(const Status& status);
  void Record(const std::string& method, const std::string& code);

  k8s::Client& inner_;
  Family<Counter>& requests_;
  const std::string host_;
  ApiReachability* const reachability_;
};

}  // namespace rdmastack::runtime
