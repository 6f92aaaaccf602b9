#pragma once
// An in-memory API server behind the k8s::Client interface, for unit tests (controller-runtime's
// fake client): objects by resource, namespace and name; one resourceVersion counter bumped by
// every write that changes something; and the API server's answers where they matter to a
// controller:
// - Get/Update/Patch/Delete of an absent object: NotFound; Create of a present one: AlreadyExists.
// - Update (and a merge patch or Delete precondition) naming a stale resourceVersion: Conflict.
// - Merge patches per RFC 7386, JSON patches per RFC 6902; a strategic merge patch is taken as a
//   merge patch (lists are replaced, not merged by key).
// - Server-side apply is approximated as create-or-merge (a field the manager stops applying
//   stays, and managers never conflict); the field manager is recorded in managedFields.
// - Every kind is taken to have a status subresource: writes of the object leave its status as
//   it was (none on create) and status writes change the status alone.
// - Delete of an object with finalizers sets its deletionTimestamp; it goes once a write empties
//   its finalizers. No finalizer may be added to an object being deleted.
// - List honours label and field selectors (selectors.h), limit and continue.
// Watch is not served: tests feed caches from Objects() or List().
//
// Every request is recorded as an Action, in order, so that a test can assert on what was read
// and on the order of the writes. Thread-safe.

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "operator/k8s/client.h"
#include "operator/k8s/testing/object_tracker.h"

namespace rdmastack::k8s::testing {

// One request the fake served (or refused).
struct Action {
  std::string verb;         // get list watch create update patch apply delete
  std::string subresource;  // "status" (UpdateStatus, PatchStatus, ApplyStatus), "token", ""
  std::string kind;         // "Pod"
  std::string ns, name;     // empty for a list of every namespace, a cluster-scoped kind
  // "patch/status GatewayPool storage/kvcache", "list Pod storage/", "get Node n1".
  std::string ToString() const;
  // Everything but get, list and watch.
  bool IsWrite() const;
  friend bool operator==(const Action&, const Action&) = default;
};

// Each action's ToString(), in order: what a test compares with what it expects.
std::vector<std::string> ToStrings(const std::vector<Action>& actions);

class FakeClient final : public Client {
 public:
  FakeClient() = default;

  // ---- test setup and inspection: none of these is recorded as an Action ----
  // Stores `object` as given, status included, replacing any object of that name (whose uid it
  // keeps unless `object` has one). Fills in apiVersion, kind, uid and creationTimestamp when
  // absent; the resourceVersion is always the fake's next one. Returns the object as stored.
  StatusOr<JsonObject> Put(const ResourceType& type, JsonObject object);
  // Removes an object at once, finalizers or not; false when there was none.
  bool Erase(const ResourceType& type, std::string_view ns, std::string_view name);
  std::optional<JsonObject> Find(const ResourceType& type, std::string_view ns,
                                 std::string_view name) const;
  // Every stored object of `type`, by namespace and name.
  std::vector<JsonObject> Objects(const ResourceType& type) const;
  // What creationTimestamp and deletionTimestamp are set to (RFC 3339).
  void SetNow(std::string rfc3339);

  std::vector<Action> actions() const;
  // The actions that are writes, optionally of one kind only.
  std::vector<Action> writes(std::string_view kind = "") const;
  void ClearActions();

  // The next `times` requests (every one when negative) whose verb is `verb` (with
  // "/subresource" for one: "apply/status") and whose kind is `kind` fail with `error`, after
  // being recorded; nothing changes. "" matches any verb or kind.
  void FailOn(std::string verb, std::string kind, Status error, int times = -1);
  // Requests of `verb` (with "/subresource", e.g. "create/token") on `kind` are answered by
  // `handler`, which gets the request's body, and nothing is stored: kinds the API server computes
  // rather than stores (TokenReview, SubjectAccessReview).
  using Handler = std::function<StatusOr<JsonObject>(const JsonObject& body)>;
  void Answer(std::string verb, std::string kind, Handler handler);

  // ---- k8s::Client ----
  StatusOr<JsonObject> Get(const ResourceType& type, std::string_view ns, std::string_view name,
                           const GetOptions& options = {}) override;
  StatusOr<ObjectList> List(const ResourceType& type, std::string_view ns,
                            const ListOptions& options = {}) override;
  StatusOr<WatchStreamPtr> Watch(const ResourceType& type, std::string_view ns,
                                 const WatchOptions& options) override;
  StatusOr<JsonObject> Create(const ResourceType& type, const JsonObject& object,
                              const WriteOptions& options = {}) override;
  StatusOr<JsonObject> Update(const ResourceType& type, const JsonObject& object,
                              const WriteOptions& options = {}) override;
  StatusOr<JsonObject> UpdateStatus(const ResourceType& type, const JsonObject& object,
                                    const WriteOptions& options = {}) override;
  StatusOr<JsonObject> Patch(const ResourceType& type, std::string_view ns, std::string_view name,
                             PatchType patch_type, std::string_view body,
                             const PatchOptions& options = {}) override;
  StatusOr<JsonObject> PatchStatus(const ResourceType& type, std::string_view ns,
                                   std::string_view name, PatchType patch_type,
                                   std::string_view body,
                                   const PatchOptions& options = {}) override;
  StatusOr<JsonObject> Delete(const ResourceType& type, std::string_view ns, std::string_view name,
                              const DeleteOptions& options = {}) override;
  StatusOr<JsonObject> CreateSubresource(const ResourceType& type, std::string_view ns,
                                         std::string_view name, std::string_view subresource,
                                         const JsonObject& body) override;

 private:
  struct Failure {
    std::string verb, kind;
    Status error;
    int times;
  };
  struct Answerer {
    std::string verb, kind;
    Handler handler;
  };

  // Records `action` and returns the injected failure or the answer for it, if any (an answer
  // runs without the lock: it may block).
  std::optional<StatusOr<JsonObject>> Intercept(const Action& action,
                                                const JsonObject* body = nullptr);
  // Update and UpdateStatus; Patch and PatchStatus.
  StatusOr<JsonObject> Replace(const ResourceType& type, const JsonObject& object,
                               std::string_view field_manager, bool status_only);
  StatusOr<JsonObject> PatchAny(const ResourceType& type, std::string_view ns,
                                std::string_view name, PatchType patch_type, std::string_view body,
                                const PatchOptions& options, bool status_only);

  mutable std::mutex mu_;
  ObjectTracker tracker_;
  std::vector<Action> actions_;
  std::vector<Failure> failures_;
  std::vector<Answerer> answers_;
};

}  // namespace rdmastack::k8s::testing
