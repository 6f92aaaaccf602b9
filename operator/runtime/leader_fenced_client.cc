#include "operator/runtime/leader_fenced_client.h"

#include <string>

#include "operator/k8s/call_context.h"

namespace rdmastack::runtime {

LeaderFencedClient::LeaderFencedClient(k8s::Client& inner, Clock& clock, LeadershipFence fence)
    : inner_(inner), clock_(clock), fence_(std::move(fence)) {}

template <typename Call>
auto LeaderFencedClient::Fenced(std::string_view what, Call&& call) -> decltype(call()) {
  const std::optional<Clock::TimePoint> valid_until = fence_();
  const Clock::TimePoint now = clock_.Now();
  if (!valid_until || now >= *valid_until) {
    return AbortedError(std::string(what) +
                        " refused: this process does not hold the leader lease");
  }
  k8s::CallScope scope(std::chrono::steady_clock::now() + (*valid_until - now));
  return call();
}

StatusOr<k8s::JsonObject> LeaderFencedClient::Get(const k8s::ResourceType& type,
                                                  std::string_view ns, std::string_view name,
                                                  const k8s::GetOptions& options) {
  return inner_.Get(type, ns, name, options);
}

StatusOr<k8s::ObjectList> LeaderFencedClient::List(const k8s::ResourceType& type,
                                                   std::string_view ns,
                                                   const k8s::ListOptions& options) {
  return inner_.List(type, ns, options);
}

StatusOr<k8s::WatchStreamPtr> LeaderFencedClient::Watch(const k8s::ResourceType& type,
                                                        std::string_view ns,
                                                        const k8s::WatchOptions& options) {
  return inner_.Watch(type, ns, options);
}

StatusOr<k8s::JsonObject> LeaderFencedClient::Create(const k8s::ResourceType& type,
                                                     const k8s::JsonObject& object,
                                                     const k8s::WriteOptions& options) {
  return Fenced("create " + type.GroupResource(),
                [&] { return inner_.Create(type, object, options); });
}

StatusOr<k8s::JsonObject> LeaderFencedClient::Update(const k8s::ResourceType& type,
                                                     const k8s::JsonObject& object,
                                                     const k8s::WriteOptions& options) {
  return Fenced("update " + type.GroupResource(),
                [&] { return inner_.Update(type, object, options); });
}

StatusOr<k8s::JsonObject> LeaderFencedClient::UpdateStatus(const k8s::ResourceType& type,
                                                           const k8s::JsonObject& object,
                                                           const k8s::WriteOptions& options) {
  return Fenced("update " + type.GroupResource() + "/status",
                [&] { return inner_.UpdateStatus(type, object, options); });
}

StatusOr<k8s::JsonObject> LeaderFencedClient::Patch(const k8s::ResourceType& type,
                                                    std::string_view ns, std::string_view name,
                                                    k8s::PatchType patch_type,
                                                    std::string_view body,
                                                    const k8s::PatchOptions& options) {
  return Fenced("patch " + type.GroupResource(),
                [&] { return inner_.Patch(type, ns, name, patch_type, body, options); });
}

StatusOr<k8s::JsonObject> LeaderFencedClient::PatchStatus(
    const k8s::ResourceType& type, std::string_view ns, std::string_view name,
    k8s::PatchType patch_type, std::string_view body, const k8s::PatchOptions& options) {
  return Fenced("patch " + type.GroupResource() + "/status",
                [&] { return inner_.PatchStatus(type, ns, name, patch_type, body, options); });
}

StatusOr<k8s::JsonObject> LeaderFencedClient::Delete(const k8s::ResourceType& type,
                                                     std::string_view ns, std::string_view name,
                                                     const k8s::DeleteOptions& options) {
  return Fenced("delete " + type.GroupResource(),
                [&] { return inner_.Delete(type, ns, name, options); });
}

StatusOr<k8s::JsonObject> LeaderFencedClient::CreateSubresource(const k8s::ResourceType& type,
                                                                std::string_view ns,
                                                                std::string_view name,
                                                                std::string_view subresource,
                                                                const k8s::JsonObject& body) {
  return Fenced("create " + type.GroupResource() + "/" + std::string(subresource),
                [&] { return inner_.CreateSubresource(type, ns, name, subresource, body); });
}

}  // namespace rdmastack::runtime
