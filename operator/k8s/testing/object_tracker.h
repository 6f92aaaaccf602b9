#pragma once
// The object store behind the fake client (client-go's ObjectTracker): objects by resource,
// namespace and name, and the API server's rules for writing them (fake_client.h lists them).
// Not thread-safe: FakeClient holds its lock around every call.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "operator/k8s/client.h"

namespace rdmastack::k8s::testing {

// `ns` for a namespaced kind, "" for a cluster-scoped one.
std::string_view ScopedNamespace(const ResourceType& type, std::string_view ns);

class ObjectTracker {
 public:
  // FakeClient::Put.
  StatusOr<JsonObject> Put(const ResourceType& type, JsonObject object);
  // Removes at once, finalizers or not; false when there was none.
  bool Erase(const ResourceType& type, std::string_view ns, std::string_view name);
  const JsonObject* Find(const ResourceType& type, std::string_view ns,
                         std::string_view name) const;
  std::vector<JsonObject> Objects(const ResourceType& type) const;
  void SetNow(std::string rfc3339) { now_ = std::move(rfc3339); }

  StatusOr<JsonObject> Get(const ResourceType& type, std::string_view ns,
                           std::string_view name) const;
  StatusOr<ObjectList> List(const ResourceType& type, std::string_view ns,
                            const ListOptions& options) const;
  StatusOr<JsonObject> Create(const ResourceType& type, JsonObject object,
                              std::string_view field_manager);
  // PUT of the object or (`status_only`) of its status.
  StatusOr<JsonObject> Update(const ResourceType& type, const JsonObject& object,
                              std::string_view field_manager, bool status_only);
  StatusOr<JsonObject> Patch(const ResourceType& type, std::string_view ns, std::string_view name,
                             PatchType patch_type, std::string_view body,
                             const PatchOptions& options, bool status_only);
  StatusOr<JsonObject> Delete(const ResourceType& type, std::string_view ns, std::string_view name,
                              const DeleteOptions& options);

 private:
  using Bucket = std::map<std::string, JsonObject>;  // "ns/name" -> object

  StatusOr<JsonObject> CreateAs(const ResourceType& type, JsonObject object,
                                std::string_view field_manager, std::string_view operation);
  // Server-side apply: creates, or merges into the stored object after removing what this
  // manager applied last time and leaves out now.
  StatusOr<JsonObject> Apply(const ResourceType& type, std::string_view ns, std::string_view name,
                             std::string_view body, const PatchOptions& options, bool status_only);
  // Stores `desired` as the next state of `current`: what a client cannot change comes from
  // `current`, and so does the status (or, for a status write, everything else). Bumps the
  // resourceVersion (and, when more than metadata and status changed, the generation) unless
  // nothing changed; removes the object when it is being deleted and has no finalizer left.
  StatusOr<JsonObject> Commit(const ResourceType& type, const JsonObject& current,
                              JsonObject desired, bool status_only, std::string_view field_manager,
                              std::string_view operation);
  JsonObject* Mutable(const ResourceType& type, std::string_view ns, std::string_view name);
  bool EraseKey(const ResourceType& type, const std::string& key);
  std::string NextResourceVersion();
  std::string NewUid();

  std::map<std::string, Bucket> objects_;  // GroupResource() -> objects
  // What each manager applied last: "resource|ns/name|subresource|manager" -> object.
  std::map<std::string, JsonObject> last_applied_;
  int64_t resource_version_ = 0;
  int64_t uids_ = 0;
  int64_t generated_names_ = 0;
  std::string now_ = "2026-01-01T00:00:00Z";
};

}  // namespace rdmastack::k8s::testing
