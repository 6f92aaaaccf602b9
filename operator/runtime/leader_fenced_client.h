#pragma once
// A k8s::Client decorator that lets writes through only while this process leads, and bounds each
// write by the end of its leadership: a write that would start after the renew deadline of the last
// successful renewal fails at once with kAborted, and one in flight at that moment is cut off (a
// k8s::CallScope deadline). Reads and watches pass through: a standby keeps its caches warm.
//
// Controllers and the event recorder write through this client, so a process that has lost its
// lease (or stopped, e.g. SIGSTOP, for longer than the renew deadline) writes nothing more, even
// before its elector thread has noticed.

#include <functional>
#include <optional>

#include "base/clock.h"
#include "operator/k8s/client.h"

namespace rdmastack::runtime {

// The time until which a write is safe (LeaderElector::LeadershipValidUntil), or nullopt.
using LeadershipFence = std::function<std::optional<Clock::TimePoint>()>;

class LeaderFencedClient final : public k8s::Client {
 public:
  LeaderFencedClient(k8s::Client& inner, Clock& clock, LeadershipFence fence);

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
  auto Fenced(std::string_view what, Call&& call) -> decltype(call());

  k8s::Client& inner_;
  Clock& clock_;
  LeadershipFence fence_;
};

}  // namespace rdmastack::runtime
