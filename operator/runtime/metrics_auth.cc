#include "operator/runtime/metrics_auth.h"

#include <openssl/evp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

namespace rdmastack::runtime {

std::optional<std::string> BearerToken(std::string_view authorization) {
  // As k8s.io/apiserver's bearertoken authenticator: trim, split on the first two spaces, the
  // scheme case-insensitive, an empty token not a token.
  const auto first = authorization.find_first_not_of(" \t");
  if (first == std::string_view::npos) return std::nullopt;
  authorization = authorization.substr(first, authorization.find_last_not_of(" \t") - first + 1);
  const size_t space = authorization.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  std::string scheme(authorization.substr(0, space));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (scheme != "bearer") return std::nullopt;
  std::string_view token = authorization.substr(space + 1);
  token = token.substr(0, token.find(' '));
  if (token.empty()) return std::nullopt;
  return std::string(token);
}

std::string_view NonResourceVerb(std::string_view method) {
  // controller-runtime's mapping; HEAD is a GET without the body, so it needs what GET needs.
  if (method == "GET" || method == "HEAD") return "get";
  if (method == "POST") return "create";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return "";
}

HttpResponse RefusalResponse(const AccessResult& result) {
  constexpr const char* kText = "text/plain; charset=utf-8";
  switch (result.decision) {
    case AccessDecision::kAllowed: break;
    case AccessDecision::kUnauthenticated: return {401, kText, "Unauthorized\n"};
    case AccessDecision::kDenied:
      return {403, kText, "Authorization denied for user " + result.user + "\n"};
    case AccessDecision::kAuthenticationError: return {500, kText, "Authentication failed\n"};
    case AccessDecision::kAuthorizationError:
      return {500, kText, "Authorization for user " + result.user + " failed\n"};
  }
  return {500, kText, "internal error: an allowed request has no refusal\n"};
}

AccessDecisionCache::AccessDecisionCache(Clock& clock, Clock::Duration ttl, size_t max_entries)
    : clock_(clock), ttl_(ttl), entries_(std::max<size_t>(1, max_entries)) {}

std::string AccessDecisionCache::Key(std::string_view token, std::string_view verb,
                                     std::string_view path) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(token.data(), token.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    size = 0;  // never happens with the default provider; an empty digest only costs a review
  }
  std::string key(reinterpret_cast<const char*>(digest), size);
  key.append(1, '\0').append(verb).append(1, '\0').append(path);
  return key;
}

std::optional<AccessResult> AccessDecisionCache::Get(std::string_view token, std::string_view verb,
                                                     std::string_view path) {
  const std::string key = Key(token, verb, path);
  std::lock_guard<std::mutex> l(mu_);
  return entries_.Get(key, clock_.Now());
}

void AccessDecisionCache::Put(std::string_view token, std::string_view verb, std::string_view path,
                              AccessResult result) {
  const std::string key = Key(token, verb, path);
  std::lock_guard<std::mutex> l(mu_);
  entries_.Put(key, std::move(result), clock_.Now() + ttl_);
}

size_t AccessDecisionCache::size() const {
  std::lock_guard<std::mutex> l(mu_);
  return entries_.size();
}

ApiServerAuthorizer::ApiServerAuthorizer(k8s::Client& client, Clock& clock,
                                         ApiServerAuthorizerOptions options)
    : client_(client), cache_(clock, options.cache_ttl, options.cache_entries) {}

AccessResult ApiServerAuthorizer::Authorize(std::string_view token, std::string_view verb,
                                            std::string_view path) {
  if (token.empty()) return {AccessDecision::kUnauthenticated, "", "no bearer token"};
  if (auto cached = cache_.Get(token, verb, path)) return *cached;
  AccessResult result = Review(token, verb, path);
  switch (result.decision) {
    case AccessDecision::kAllowed:
    case AccessDecision::kDenied:
    case AccessDecision::kUnauthenticated: cache_.Put(token, verb, path, result); break;
    case AccessDecision::kAuthenticationError:
    case AccessDecision::kAuthorizationError: break;  // the next scrape asks again
  }
  return result;
}

AccessResult ApiServerAuthorizer::Review(std::string_view token, std::string_view verb,
                                         std::string_view path) {
  auto review = k8s::ReviewToken(client_, token);
  if (!review.ok()) {
    return {AccessDecision::kAuthenticationError, "", "TokenReview: " + review.status().ToString()};
  }
  auto user = review->Get({"user"});
  const std::string name = user ? user->GetString({"username"}).value_or("") : "";
  if (!review->GetBool({"authenticated"}).value_or(false) || name.empty()) {
    return {AccessDecision::kUnauthenticated, "",
            review->GetString({"error"}).value_or("token not authenticated")};
  }
  auto access = k8s::ReviewNonResourceAccess(client_, *user, verb, path);
  if (!access.ok()) {
    return {AccessDecision::kAuthorizationError, name,
            "SubjectAccessReview: " + access.status().ToString()};
  }
  std::string reason = access->GetString({"reason"}).value_or("");
  if (auto error = access->GetString({"evaluationError"}); error && !error->empty()) {
    reason += (reason.empty() ? "" : "; ") + *error;
  }
  const bool allowed = access->GetBool({"allowed"}).value_or(false);
  return {allowed ? AccessDecision::kAllowed : AccessDecision::kDenied, name, std::move(reason)};
}

HttpHandler WithAuthenticationAndAuthorization(RequestAuthorizer& authorizer, HttpHandler inner) {
  return [&authorizer, inner = std::move(inner)](const HttpRequest& request) {
    const std::string token = BearerToken(request.authorization).value_or("");
    const AccessResult result =
        authorizer.Authorize(token, NonResourceVerb(request.method), request.path);
    if (result.decision == AccessDecision::kAllowed) return inner(request);
    if (result.decision == AccessDecision::kAuthenticationError ||
        result.decision == AccessDecision::kAuthorizationError) {
      spdlog::warn("{} {}: cannot authorise the request: {}", request.method, request.path,
                   result.reason);
    } else {
      spdlog::debug("{} {} refused (user \"{}\"): {}", request.method, request.path, result.user,
                    result.reason);
    }
    return RefusalResponse(result);
  };
}

}  // namespace rdmastack::runtime
