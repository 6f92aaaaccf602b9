#pragma once
// Who may scrape /metrics, decided the way controller-runtime's
// WithAuthenticationAndAuthorization filter decides it: the request's bearer token goes to the
// API server in a TokenReview; the user it names must be allowed the HTTP verb ("get") on the
// non-resource URL (the request path) by a SubjectAccessReview. Decisions are cached briefly so
// that a scraper costs the API server one review pair per TTL, not per scrape.
//
// The operator's own ServiceAccount therefore needs `create` on tokenreviews
// (authentication.k8s.io) and subjectaccessreviews (authorization.k8s.io); a scraper needs a
// ClusterRole with nonResourceURLs ["/metrics"], verbs ["get"].

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/expiring_lru.h"
#include "operator/k8s/client.h"
#include "operator/runtime/http_server.h"

namespace rdmastack::runtime {

enum class AccessDecision {
  kAllowed,
  kUnauthenticated,      // no token, or the API server did not accept it
  kDenied,               // authenticated, but not authorised
  kAuthenticationError,  // the TokenReview itself failed (API server unreachable, forbidden)
  kAuthorizationError,   // the SubjectAccessReview itself failed
};

struct AccessResult {
  AccessDecision decision = AccessDecision::kUnauthenticated;
  std::string user;    // the authenticated user name; "" before authentication
  std::string reason;  // for logs: the review's reason or error, or the failed call's status
};

// The token of an Authorization header "Bearer <token>" (the scheme case-insensitive, as the API
// server reads it); nullopt when the header is absent, has another scheme, or an empty token.
std::optional<std::string> BearerToken(std::string_view authorization);

// The API verb for an HTTP method on a non-resource URL (GET and HEAD: "get", POST: "create", ...);
// "" for methods without one.
std::string_view NonResourceVerb(std::string_view method);

// The response for a decision other than kAllowed, with controller-runtime's texts: 401
// Unauthorized, 403 for a denied user, 500 when a review could not be made.
HttpResponse RefusalResponse(const AccessResult& result);

// Recent decisions by (token, verb, path). Bounded: when full, the least recently used entry
// goes. Tokens are kept only as SHA-256 digests. Thread-safe.
class AccessDecisionCache {
 public:
  AccessDecisionCache(Clock& clock, Clock::Duration ttl, size_t max_entries);

  std::optional<AccessResult> Get(std::string_view token, std::string_view verb,
                                  std::string_view path);
  void Put(std::string_view token, std::string_view verb, std::string_view path,
           AccessResult result);
  size_t size() const;

 private:
  static std::string Key(std::string_view token, std::string_view verb, std::string_view path);

  Clock& clock_;
  const Clock::Duration ttl_;
  mutable std::mutex mu_;
  ExpiringLru<AccessResult> entries_;
};

// Decides whether a request may proceed.
class RequestAuthorizer {
 public:
  virtual ~RequestAuthorizer() = default;
  // `token` is empty when the request carried none.
  virtual AccessResult Authorize(std::string_view token, std::string_view verb,
                                 std::string_view path) = 0;
};

struct ApiServerAuthorizerOptions {
  // controller-runtime's delegating caches keep decisions for 10 s to 5 min; short, so that a
  // revoked binding takes effect quickly.
  Clock::Duration cache_ttl = std::chrono::seconds(10);
  size_t cache_entries = 1024;
};

// TokenReview then SubjectAccessReview through `client`; decisions cached, failures never.
class ApiServerAuthorizer final : public RequestAuthorizer {
 public:
  ApiServerAuthorizer(k8s::Client& client, Clock& clock, ApiServerAuthorizerOptions options = {});
  AccessResult Authorize(std::string_view token, std::string_view verb,
                         std::string_view path) override;

 private:
  AccessResult Review(std::string_view token, std::string_view verb, std::string_view path);

  k8s::Client& client_;
  AccessDecisionCache cache_;
};

// `inner` behind the filter: it runs only for allowed requests; the others get RefusalResponse.
HttpHandler WithAuthenticationAndAuthorization(RequestAuthorizer& authorizer, HttpHandler inner);

}  // namespace rdmastack::runtime
