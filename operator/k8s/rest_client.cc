#include "operator/k8s/rest_client.h"

#include <algorithm>
#include <thread>

#include "operator/k8s/api_error.h"
#include "operator/k8s/call_context.h"
#include "operator/k8s/rest_codec.h"

namespace rdmastack::k8s {
namespace {

// Events are lines; a single event larger than this is refused rather than buffered forever. The
// API server refuses objects above 3 MiB (etcd's request limit is 1.5 MiB by default), so a real
// watch event is far below it.
constexpr size_t kMaxWatchEventBytes = size_t{16} << 20;

Status ErrorFromResponse(const HttpRequest& request, const HttpResponse& response) {
  Status status =
      ApiErrorFromResponse(response.status, response.body, response.retry_after).ToStatus();
  return status.WithContext(request.method + " " + request.target);
}

// The server needs apiVersion/kind in bodies; fill them in when the caller left them out.
std::string SerializeWithTypeMeta(const ResourceType& type, const JsonObject& object) {
  if (!object.ApiVersion().empty() && !object.Kind().empty()) return object.Serialize();
  JsonObject copy = object;
  if (copy.ApiVersion().empty()) copy.SetApiVersion(type.ApiVersion());
  if (copy.Kind().empty()) copy.SetKind(type.kind);
  return copy.Serialize();
}

// Splits the stream into lines, one per event. Each byte is copied once, from the piece the
// transport read into the line that the event then owns and is parsed in (DecodeWatchEvent takes
// it by move); a piece that holds exactly one whole line becomes that line without a copy.
class RestWatchStream final : public WatchStream {
 public:
  explicit RestWatchStream(std::unique_ptr<ResponseStream> stream) : stream_(std::move(stream)) {}

  StatusOr<std::optional<WatchEvent>> Next() override {
    while (true) {
      if (offset_ < piece_.size()) {
        const size_t newline = piece_.find('\n', offset_);
        if (newline == std::string::npos) {
          // The line goes on in the next piece. It is likely about as long as the last one:
          // reserving that keeps it from growing (and copying itself) piece by piece.
          if (line_.empty()) line_.reserve(std::max(next_reserve_, piece_.size() - offset_));
          Append(piece_.size());
          if (line_.size() > kMaxWatchEventBytes) {
            return ResourceExhaustedError("watch event larger than " +
                                          std::to_string(kMaxWatchEventBytes) + " bytes");
          }
          continue;
        }
        std::string line;
        if (line_.empty() && offset_ == 0 && newline + 1 == piece_.size()) {
          line = std::move(piece_);  // the piece is the line
          line.pop_back();
          piece_.clear();
        } else {
          Append(newline);
          line = std::move(line_);
          line_ = std::string();
        }
        offset_ = newline + 1;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        next_reserve_ = line.size() + line.size() / 8;
        return Decode(std::move(line));
      }
      RDMASTACK_ASSIGN_OR_RETURN(std::optional<std::string> piece, stream_->Read());
      if (!piece.has_value()) {
        // The stream ended; a last event without a trailing newline still counts.
        if (line_.find_first_not_of(" \t\r\n") == std::string::npos)
          return std::optional<WatchEvent>();
        std::string line = std::move(line_);
        line_ = std::string();
        return Decode(std::move(line));
      }
      piece_ = std::move(*piece);
      offset_ = 0;
    }
  }

  void Cancel() override { stream_->Cancel(); }

 private:
  // Appends piece_[offset_, end) to the line being collected.
  void Append(size_t end) {
    line_.append(piece_, offset_, end - offset_);
    offset_ = end;
  }
  static StatusOr<std::optional<WatchEvent>> Decode(std::string line) {
    RDMASTACK_ASSIGN_OR_RETURN(WatchEvent event, DecodeWatchEvent(std::move(line)));
    return std::optional<WatchEvent>(std::move(event));
  }

  std::unique_ptr<ResponseStream> stream_;
  std::string piece_;  // the last piece read; bytes before offset_ are taken
  size_t offset_ = 0;
  std::string line_;         // the event being collected, from earlier pieces
  size_t next_reserve_ = 0;  // a little more than the last line's length
};

class RestClient final : public Client {
 public:
  RestClient(std::unique_ptr<Transport> transport, RetryPolicy retry)
      : transport_(std::move(transport)), retry_(retry) {}

  StatusOr<JsonObject> Get(const ResourceType& type, std::string_view ns, std::string_view name,
                           const GetOptions& options) override {
    RDMASTACK_ASSIGN_OR_RETURN(std::string path, ObjectPath(type, ns, name));
    QueryParams q;
    if (!options.resource_version.empty())
      q.emplace_back("resourceVersion", options.resource_version);
    return CallForObject("GET", path + BuildQuery(q));
  }

  StatusOr<ObjectList> List(const ResourceType& type, std::string_view ns,
                            const ListOptions& options) override {
    RDMASTACK_ASSIGN_OR_RETURN(std::string path, CollectionPath(type, ns));
    HttpRequest request{"GET", path + BuildQuery(ListQuery(options))};
    RDMASTACK_ASSIGN_OR_RETURN(HttpResponse response, Call(request));
    return DecodeObjectList(std::move(response.body));
  }

  StatusOr<WatchStreamPtr> Watch(const ResourceType& type, std::string_view ns,
                                 const WatchOptions& options) override {
    RDMASTACK_ASSIGN_OR_RETURN(std::string path, CollectionPath(type, ns));
    HttpRequest request{"GET", path + BuildQuery(WatchQuery(options))};
    RDMASTACK_ASSIGN_OR_RETURN(Transport::StreamResult result,
                               transport_->OpenStream(request, options.inactivity_timeout));
    if (result.error_response) return ErrorFromResponse(request, *result.error_response);
    return WatchStreamPtr(std::make_unique<RestWatchStream>(std::move(result.stream)));
  }

  StatusOr<JsonObject> Create(const ResourceType& type, const JsonObject& object,
                              const WriteOptions& options) override {
    RDMASTACK_ASSIGN_OR_RETURN(std::string ns, NamespaceFor(type, object));
    RDMASTACK_ASSIGN_OR_RETURN(std::string path, CollectionPath(type, ns));
    return CallForObject("POST", path + BuildQuery(WriteQuery(options)),
                         SerializeWithTypeMeta(type, object));
  }

  StatusOr<JsonObject> Update(const ResourceType& type, const JsonObject& object,
                              const WriteOptions& options) override {
    return Put(type, object, "", options);
  }

  StatusOr<JsonObject> UpdateStatus(const ResourceType& type, const JsonObject& object,
                                    const WriteOptions& options) override {
    return Put(type, object, "status", options);
  }

  StatusOr<JsonObject> Patch(const ResourceType& type, std::string_view ns, std::string_view name,
                             PatchType patch_type, std::string_view body,
                             const PatchOptions& options) override {
    return DoPatch(type, ns, name, "", patch_type, body, options);
  }

  StatusOr<JsonObject> PatchStatus(const ResourceType& type, std::string_view ns,
                                   std::string_view name, PatchType patch_type,
                                   std::string_view body, const PatchOptions& options) override {
    return DoPatch(type, ns, name, "status", patch_type, body, options);
  }

  StatusOr<JsonObject> Delete(const ResourceType& type, std::string_view ns, std::string_view name,
                              const DeleteOptions& options) override {
    RDMASTACK_ASSIGN_OR_RETURN(std::string path, ObjectPath(type, ns, name));
    return CallForObject("DELETE", path, DeleteBody(options));
  }

  StatusOr<JsonObject> CreateSubresource(const ResourceType& type, std::string_view ns,
                                         std::string_view name, std::string_view subresource,
                                         const JsonObject& body) override {
    RDMASTACK_ASSIGN_OR_RETURN(std::string path, ObjectPath(type, ns, name, subresource));
    return CallForObject("POST", path, body.Serialize());
  }

 private:
  static StatusOr<std::string> NamespaceFor(const ResourceType& type, const JsonObject& object) {
    std::string ns(object.Namespace());
    if (!type.namespaced) {
      if (!ns.empty()) {
        return InvalidArgumentError(
            type.kind + " is cluster-scoped but the object sets metadata.namespace '" + ns + "'");
      }
      return ns;
    }
    if (ns.empty()) return InvalidArgumentError(type.kind + " needs metadata.namespace");
    return ns;
  }

  StatusOr<JsonObject> Put(const ResourceType& type, const JsonObject& object,
                           std::string_view subresource, const WriteOptions& options) {
    RDMASTACK_ASSIGN_OR_RETURN(std::string ns, NamespaceFor(type, object));
    RDMASTACK_ASSIGN_OR_RETURN(std::string path, ObjectPath(type, ns, object.Name(), subresource));
    return CallForObject("PUT", path + BuildQuery(WriteQuery(options)),
                         SerializeWithTypeMeta(type, object));
  }

  StatusOr<JsonObject> DoPatch(const ResourceType& type, std::string_view ns, std::string_view name,
                               std::string_view subresource, PatchType patch_type,
                               std::string_view body, const PatchOptions& options) {
    RDMASTACK_ASSIGN_OR_RETURN(std::string path, ObjectPath(type, ns, name, subresource));
    RDMASTACK_ASSIGN_OR_RETURN(QueryParams q, PatchQuery(patch_type, options));
    return CallForObject("PATCH", path + BuildQuery(q), std::string(body),
                         std::string(PatchContentType(patch_type)));
  }

  StatusOr<HttpResponse> Call(const HttpRequest& request) {
    for (int retries = 0;; ++retries) {
      RDMASTACK_ASSIGN_OR_RETURN(HttpResponse response, transport_->Send(request));
      if (response.status >= 200 && response.status < 300) return response;
      const auto wait = ThrottleWait(request, response);
      auto error = [&] {
        Status e = ErrorFromResponse(request, response);
        return retries > 0 ? e.WithContext("after " + std::to_string(retries) + " retries") : e;
      };
      if (!wait || retries >= retry_.max_throttle_retries) return error();
      const auto delay = std::min<std::chrono::steady_clock::duration>(
          std::min(*wait, retry_.max_retry_after), std::chrono::hours(1));
      // A retry that could not start before the caller's deadline is not attempted at all.
      const auto& deadline = CurrentCallContext().deadline;
      if (deadline && std::chrono::steady_clock::now() + delay >= *deadline) return error();
      if (!SleepUnlessCancelled(delay)) return error();
    }
  }

  // Sleeps for `delay`; false when the calling thread's CallContext is cancelled first.
  static bool SleepUnlessCancelled(std::chrono::steady_clock::duration delay) {
    const auto& cancellation = CurrentCallContext().cancellation;
    if (!cancellation) {
      std::this_thread::sleep_for(delay);
      return true;
    }
    return !cancellation->WaitFor(delay);
  }

  // How long the server asked us to wait before trying again, when it asked (client-go's
  // checkWait: 429 or 5xx, and a Retry-After header). A 429 from priority and fairness means the
  // request was not processed, so any request may be repeated; after a 5xx the server may have
  // acted on it, so only a request that is safe to repeat is.
  static std::optional<std::chrono::seconds> ThrottleWait(const HttpRequest& request,
                                                          const HttpResponse& response) {
    if (response.status != 429 && response.status < 500) return std::nullopt;
    if (response.status != 429 && !IsSafeToResend(request)) return std::nullopt;
    if (response.retry_after.empty()) return std::nullopt;
    return ParseRetryAfterHeader(response.retry_after);
  }

  StatusOr<JsonObject> CallForObject(std::string method, std::string target, std::string body = "",
                                     std::string content_type = "application/json") {
    HttpRequest request{std::move(method), std::move(target), std::move(body),
                        std::move(content_type)};
    RDMASTACK_ASSIGN_OR_RETURN(HttpResponse response, Call(request));
    auto object = JsonObject::ParseOwned(response.body);
    if (!object.ok())
      return object.status().WithContext("decoding the response to " + request.method + " " +
                                         request.target);
    return object;
  }

  std::unique_ptr<Transport> transport_;
  const RetryPolicy retry_;
};

}  // namespace

std::string_view WatchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded: return "ADDED";
    case WatchEventType::kModified: return "MODIFIED";
    case WatchEventType::kDeleted: return "DELETED";
    case WatchEventType::kBookmark: return "BOOKMARK";
    case WatchEventType::kError: return "ERROR";
  }
  return "UNKNOWN";
}

Status WatchEvent::ErrorStatus() const {
  if (type != WatchEventType::kError) return OkStatus();
  return ApiErrorFromStatusJson(object.Serialize()).ToStatus().WithContext("watch");
}

std::string_view PatchContentType(PatchType type) {
  switch (type) {
    case PatchType::kMerge: return "application/merge-patch+json";
    case PatchType::kJsonPatch: return "application/json-patch+json";
    case PatchType::kStrategicMerge: return "application/strategic-merge-patch+json";
    case PatchType::kApply: return "application/apply-patch+yaml";
  }
  return "application/json";
}

StatusOr<JsonObject> Client::Apply(const ResourceType& type, const JsonObject& object,
                                   const PatchOptions& options) {
  return Patch(type, object.Namespace(), object.Name(), PatchType::kApply,
               SerializeWithTypeMeta(type, object), options);
}

StatusOr<JsonObject> Client::ApplyStatus(const ResourceType& type, const JsonObject& object,
                                         const PatchOptions& options) {
  return PatchStatus(type, object.Namespace(), object.Name(), PatchType::kApply,
                     SerializeWithTypeMeta(type, object), options);
}

StatusOr<ObjectList> Client::ListAll(const ResourceType& type, std::string_view ns,
                                     const ListOptions& options) {
  ObjectList all;
  ListOptions page_options = options;
  while (true) {
    auto page = List(type, ns, page_options);
    if (!page.ok() && IsExpired(page.status()) && !page_options.continue_token.empty()) {
      // The continue token outlived etcd's compaction: start over in one unpaged list, as
      // client-go's pager does.
      all.items.clear();
      page_options.continue_token.clear();
      page_options.limit = 0;
      continue;
    }
    if (!page.ok()) return page.status();
    if (all.kind.empty()) {
      all.api_version = page->api_version;
      all.kind = page->kind;
    }
    all.resource_version = page->resource_version;
    for (auto& item : page->items) all.items.push_back(std::move(item));
    if (page->continue_token.empty() || page_options.limit == 0) return all;
    page_options.continue_token = page->continue_token;
    // Later pages are served at the first page's snapshot; the RV must not be repeated.
    page_options.resource_version.clear();
    page_options.resource_version_match.clear();
  }
}

StatusOr<JsonObject> ReviewToken(Client& client, std::string_view token,
                                 const std::vector<std::string>& audiences) {
  JsonObject review;
  review.SetApiVersion("authentication.k8s.io/v1");
  review.SetKind("TokenReview");
  RDMASTACK_RETURN_IF_ERROR(review.SetString({"spec", "token"}, token));
  for (const auto& audience : audiences) {
    JsonObject value;
    RDMASTACK_RETURN_IF_ERROR(value.SetString({}, audience));
    RDMASTACK_RETURN_IF_ERROR(review.Append({"spec", "audiences"}, value));
  }
  RDMASTACK_ASSIGN_OR_RETURN(JsonObject result, client.Create(kinds::TokenReview(), review));
  auto status = result.Get({"status"});
  if (!status) return DataLossError("TokenReview response has no status");
  return std::move(*status);
}

StatusOr<std::string> RequestServiceAccountToken(Client& client, std::string_view ns,
                                                 std::string_view service_account,
                                                 const TokenRequestOptions& options) {
  JsonObject request;
  request.SetApiVersion("authentication.k8s.io/v1");
  request.SetKind("TokenRequest");
  RDMASTACK_RETURN_IF_ERROR(request.Set({"spec"}, JsonObject()));
  for (const auto& audience : options.audiences) {
    JsonObject value;
    RDMASTACK_RETURN_IF_ERROR(value.SetString({}, audience));
    RDMASTACK_RETURN_IF_ERROR(request.Append({"spec", "audiences"}, value));
  }
  if (options.expiration_seconds) {
    RDMASTACK_RETURN_IF_ERROR(
        request.SetInt({"spec", "expirationSeconds"}, *options.expiration_seconds));
  }
  RDMASTACK_ASSIGN_OR_RETURN(
      JsonObject result,
      client.CreateSubresource(kinds::ServiceAccount(), ns, service_account, "token", request));
  auto token = result.GetString({"status", "token"});
  if (!token || token->empty()) return DataLossError("TokenRequest response has no status.token");
  return *token;
}

ClientPtr NewRestClientOverTransport(std::unique_ptr<Transport> transport, RetryPolicy retry) {
  return std::make_unique<RestClient>(std::move(transport), retry);
}

StatusOr<ClientPtr> NewRestClient(Config config) {
  RDMASTACK_ASSIGN_OR_RETURN(std::unique_ptr<Transport> transport, NewHttpsTransport(config));
  return NewRestClientOverTransport(
      std::move(transport), RetryPolicy{config.max_throttle_retries, config.max_retry_after});
}

StatusOr<ClientPtr> NewRestClientFromKubeconfig(const std::string& path) {
  RDMASTACK_ASSIGN_OR_RETURN(Config config, LoadKubeconfig(path));
  return NewRestClient(std::move(config));
}

}  // namespace rdmastack::k8s
