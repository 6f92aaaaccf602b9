#pragma once
// A k8s::Client decorator that counts requests in rest_client_requests_total{code,method,host}
// (client-go's metric). code is the HTTP status, or "<error>" when no response came back; a
// successful call is counted as 201 for creates and 200 otherwise (the client does not report
// the exact success code).

#include <string>

#include "operator/k8s/client.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::runtime {

class InstrumentedClient final : public k8s::Client {
 public:
  InstrumentedClient(k8s::Client& inner, MetricsRegistry& metrics, std::string host);

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
  template <typename T>
  T Count(const char* method, const char* success_code, T result) {
    Record(method, result.ok() ? success_code : CodeOf(result.status()));
    return result;
  }
  static std::string CodeOf(const Status& status);
  void Record(const std::string& method, const std::string& code);

  k8s::Client& inner_;
  Family<Counter>& requests_;
  const std::string host_;
};

}  // namespace rdmastack::runtime
