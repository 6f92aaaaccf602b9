#pragma once
// The Kubernetes REST client. `Client` is the interface controllers and the runtime code against
// (fakes implement it in tests); `RestClient` talks to a real API server over HTTPS.
//
// Every call is synchronous and thread-safe. Errors from the server are typed (api_error.h).
// A 429 (or 5xx) with Retry-After is retried inside the call, as client-go does
// (Config::max_throttle_retries); callers see the error only when the retries run out.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "operator/k8s/config.h"
#include "operator/k8s/json_object.h"
#include "operator/k8s/resource.h"

namespace rdmastack::k8s {

struct GetOptions {
  std::string resource_version;  // "" = most recent (quorum read); "0" = any cached
};

struct ListOptions {
  std::string label_selector;  // "app=x,tier!=db"
  std::string field_selector;  // "metadata.name=foo"
  int64_t limit = 0;           // 0 = no paging
  std::string continue_token;
  std::string resource_version;        // "" = most recent; "0" = watch cache
  std::string resource_version_match;  // "", "NotOlderThan", "Exact"
  std::optional<int> timeout_seconds;
};

struct ObjectList {
  std::string api_version;
  std::string kind;  // "PodList"
  std::string resource_version;
  std::string continue_token;  // "" on the last page
  std::optional<int64_t> remaining_item_count;
  std::vector<JsonObject> items;  // each with apiVersion/kind filled in from the list
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string
      resource_version;  // start after this version; "" = from now (+ synthetic ADDs), "0" likewise
  bool allow_watch_bookmarks = true;
  std::optional<int>
      timeout_seconds;  // server ends the watch after this long (client-go: 300..600 s random)
  // Client side: give up when no byte (not even a bookmark) arrives for this long.
  std::chrono::milliseconds inactivity_timeout{std::chrono::minutes(11)};
  bool send_initial_events = false;  // watch-list; needs resource_version_match = NotOlderThan
  std::string resource_version_match;
};

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };
std::string_view WatchEventTypeName(WatchEventType type);

struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  // The object; for kError the metav1.Status (see ErrorStatus()).
  JsonObject object;

  // For kError: the typed error (IsExpired() for 410 -> relist). OK for other types.
  Status ErrorStatus() const;
};

// An open watch. Next() blocks for the next event.
class WatchStream {
 public:
  virtual ~WatchStream() = default;
  // The next event; std::nullopt when the server ended the stream cleanly (timeoutSeconds elapsed,
  // apiserver shutting down): the caller re-watches from its last resourceVersion. An error Status
  // on transport failure, malformed data, inactivity timeout (kDeadlineExceeded) or Cancel()
  // (kCancelled).
  virtual StatusOr<std::optional<WatchEvent>> Next() = 0;
  // Makes a blocked or later Next() return kCancelled. Callable from any thread.
  virtual void Cancel() = 0;
};
using WatchStreamPtr = std::unique_ptr<WatchStream>;

struct WriteOptions {
  std::string field_manager;  // recorded in managedFields
  bool dry_run = false;
};

enum class PatchType {
  kMerge,           // application/merge-patch+json (RFC 7386)
  kJsonPatch,       // application/json-patch+json (RFC 6902)
  kStrategicMerge,  // application/strategic-merge-patch+json (built-in kinds only)
  kApply,           // application/apply-patch+yaml: server-side apply, needs field_manager
};
std::string_view PatchContentType(PatchType type);

struct PatchOptions {
  std::string field_manager;
  bool force = false;  // apply only: take over fields owned by other managers
  bool dry_run = false;
};

enum class PropagationPolicy { kOrphan, kBackground, kForeground };

struct DeleteOptions {
  std::optional<PropagationPolicy> propagation_policy;
  std::optional<int64_t> grace_period_seconds;
  // Preconditions: the delete fails with Conflict unless the object still matches.
  std::string precondition_uid;
  std::string precondition_resource_version;
  bool dry_run = false;
};

class Client {
 public:
  virtual ~Client() = default;

  virtual StatusOr<JsonObject> Get(const ResourceType& type, std::string_view ns,
                                   std::string_view name, const GetOptions& options = {}) = 0;
  // One page. Use ListAll() to follow continue tokens.
  virtual StatusOr<ObjectList> List(const ResourceType& type, std::string_view ns,
                                    const ListOptions& options = {}) = 0;
  virtual StatusOr<WatchStreamPtr> Watch(const ResourceType& type, std::string_view ns,
                                         const WatchOptions& options) = 0;
  // Namespace and name come from the object's metadata (generateName works).
  virtual StatusOr<JsonObject> Create(const ResourceType& type, const JsonObject& object,
                                      const WriteOptions& options = {}) = 0;
  // PUT; optimistic concurrency through metadata.resourceVersion (stale -> Conflict).
  virtual StatusOr<JsonObject> Update(const ResourceType& type, const JsonObject& object,
                                      const WriteOptions& options = {}) = 0;
  // PUT to the /status subresource.
  virtual StatusOr<JsonObject> UpdateStatus(const ResourceType& type, const JsonObject& object,
                                            const WriteOptions& options = {}) = 0;
  virtual StatusOr<JsonObject> Patch(const ResourceType& type, std::string_view ns,
                                     std::string_view name, PatchType patch_type,
                                     std::string_view body, const PatchOptions& options = {}) = 0;
  virtual StatusOr<JsonObject> PatchStatus(const ResourceType& type, std::string_view ns,
                                           std::string_view name, PatchType patch_type,
                                           std::string_view body,
                                           const PatchOptions& options = {}) = 0;
  // Returns what the server returned: the deleted object (or the object with a deletionTimestamp
  // when finalizers hold it) or a Status object.
  virtual StatusOr<JsonObject> Delete(const ResourceType& type, std::string_view ns,
                                      std::string_view name, const DeleteOptions& options = {}) = 0;
  // POST to a subresource, e.g. serviceaccounts/<name>/token (TokenRequest).
  virtual StatusOr<JsonObject> CreateSubresource(const ResourceType& type, std::string_view ns,
                                                 std::string_view name,
                                                 std::string_view subresource,
                                                 const JsonObject& body) = 0;

  // ---- conveniences built on the calls above ----
  // Server-side apply of `object` (namespace/name from its metadata).
  StatusOr<JsonObject> Apply(const ResourceType& type, const JsonObject& object,
                             const PatchOptions& options);
  StatusOr<JsonObject> ApplyStatus(const ResourceType& type, const JsonObject& object,
                                   const PatchOptions& options);
  // Every page, following continue tokens. The returned resource_version is the last page's.
  StatusOr<ObjectList> ListAll(const ResourceType& type, std::string_view ns,
                               const ListOptions& options = {});
};
using ClientPtr = std::unique_ptr<Client>;

// TokenReview: authenticates `token` (optionally for `audiences`). Returns the TokenReview status
// object (authenticated, user{username,uid,groups,extra}, audiences, error).
StatusOr<JsonObject> ReviewToken(Client& client, std::string_view token,
                                 const std::vector<std::string>& audiences = {});
// SubjectAccessReview for a non-resource URL: may `user` (a TokenReview's status.user: username,
// uid, groups, extra) do `verb` ("get") on `path` ("/metrics")? Returns the SubjectAccessReview
// status object (allowed, denied, reason, evaluationError).
StatusOr<JsonObject> ReviewNonResourceAccess(Client& client, const JsonObject& user,
                                             std::string_view verb, std::string_view path);
// TokenRequest: a bound token for ServiceAccount ns/name. Returns status.token.
struct TokenRequestOptions {
  std::vector<std::string> audiences;
  std::optional<int64_t> expiration_seconds;
};
StatusOr<std::string> RequestServiceAccountToken(Client& client, std::string_view ns,
                                                 std::string_view service_account,
                                                 const TokenRequestOptions& options = {});

// Makes a client over the HTTPS transport. Fails on a bad config (unreadable CA, key not matching
// the certificate, non-https server).
StatusOr<ClientPtr> NewRestClient(Config config);
// The same, from the current context of the kubeconfig at `path` (tools, benchmarks).
StatusOr<ClientPtr> NewRestClientFromKubeconfig(const std::string& path);

}  // namespace rdmastack::k8s
