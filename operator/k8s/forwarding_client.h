#pragma once
// The base of every k8s::Client decorator: each call goes to the wrapped client through one hook,
// Around, which sees what the call is (ApiCall) and may refuse it, bound it or count it. A
// decorator that changes answers (not only passes them) overrides that call as well and reaches
// the wrapped client through the base's method. A new Client method is added here once, not in
// every decorator.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "operator/k8s/client.h"

namespace rdmastack::k8s {

enum class ApiVerb { kGet, kList, kWatch, kCreate, kUpdate, kPatch, kDelete };

// One call as a decorator sees it.
struct ApiCall {
  ApiVerb verb;
  const ResourceType& type;
  std::string_view subresource;       // "status", "token", or "" for the object itself
  std::string_view resource_version;  // reads: what the caller asked for ("" = from storage)
};

// GET, POST, PUT, PATCH or DELETE.
const char* HttpMethod(ApiVerb verb);
bool IsWrite(ApiVerb verb);
// "create apps/daemonsets", "patch rdmastack.io/gatewaypools/status": a call as a message names it.
std::string Describe(const ApiCall& call);

class ForwardingClient : public Client {
 public:
  explicit ForwardingClient(Client& inner) : inner_(inner) {}

  StatusOr<JsonObject> Get(const ResourceType& type, std::string_view ns, std::string_view name,
                           const GetOptions& options) override;
  StatusOr<ObjectList> List(const ResourceType& type, std::string_view ns,
                            const ListOptions& options) override;
  StatusOr<WatchStreamPtr> Watch(const ResourceType& type, std::string_view ns,
                                 const WatchOptions& options) override;
  StatusOr<JsonObject> Create(const ResourceType& type, const JsonObject& object,
                              const WriteOptions& options) override;
  StatusOr<JsonObject> Update(const ResourceType& type, const JsonObject& object,
                              const WriteOptions& options) override;
  StatusOr<JsonObject> UpdateStatus(const ResourceType& type, const JsonObject& object,
                                    const WriteOptions& options) override;
  StatusOr<JsonObject> Patch(const ResourceType& type, std::string_view ns, std::string_view name,
                             PatchType patch_type, std::string_view body,
                             const PatchOptions& options) override;
  StatusOr<JsonObject> PatchStatus(const ResourceType& type, std::string_view ns,
                                   std::string_view name, PatchType patch_type,
                                   std::string_view body, const PatchOptions& options) override;
  StatusOr<JsonObject> Delete(const ResourceType& type, std::string_view ns, std::string_view name,
                              const DeleteOptions& options) override;
  StatusOr<JsonObject> CreateSubresource(const ResourceType& type, std::string_view ns,
                                         std::string_view name, std::string_view subresource,
                                         const JsonObject& body) override;

 protected:
  // Makes the call by running `call_inner` (at most once) and returns its status. Returning an
  // error without running it refuses the call: the caller gets that error. Once it has run, the
  // caller gets the wrapped client's answer, whatever this returns.
  virtual Status Around(const ApiCall& call, const std::function<Status()>& call_inner) {
    (void)call;
    return call_inner();
  }

 private:
  template <typename T, typename Call>
  StatusOr<T> Through(const ApiCall& call, Call&& inner_call) {
    std::optional<StatusOr<T>> answer;
    Status status = Around(call, [&] {
      answer.emplace(inner_call());
      return answer->status();
    });
    if (!answer) return status.ok() ? InternalError(Describe(call) + ": not made") : status;
    return std::move(*answer);
  }

  Client& inner_;
};

}  // namespace rdmastack::k8s
