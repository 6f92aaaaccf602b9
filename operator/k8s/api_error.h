#pragma once
// Kubernetes API errors. A failed request becomes a rdmastack::Status whose code follows the HTTP
// status and whose message is the server's own text; the full metav1.Status travels as a payload,
// so callers can ask for the reason, the field causes and Retry-After without string matching.
//
// Code mapping: NotFound->kNotFound, AlreadyExists->kAlreadyExists, Conflict->kAborted,
// Gone/Expired->kOutOfRange, Forbidden->kPermissionDenied, Unauthorized->kUnauthenticated,
// Invalid/BadRequest->kInvalidArgument, TooManyRequests->kResourceExhausted,
// Timeout/ServerTimeout/504->kDeadlineExceeded, 503->kUnavailable, other 5xx->kInternal.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack::k8s {

// metav1.StatusReason values we act on.
enum class ApiReason {
  kUnknown,
  kNotFound,
  kAlreadyExists,
  kConflict,
  kGone,
  kExpired,
  kForbidden,
  kUnauthorized,
  kInvalid,
  kBadRequest,
  kMethodNotAllowed,
  kNotAcceptable,
  kUnsupportedMediaType,
  kRequestEntityTooLarge,
  kTooManyRequests,
  kTimeout,
  kServerTimeout,
  kInternalError,
  kServiceUnavailable,
};

std::string_view ApiReasonName(ApiReason reason);
ApiReason ParseApiReason(std::string_view reason);

// metav1.StatusCause: for Invalid, one per offending field.
struct StatusCause {
  std::string type;  // e.g. FieldValueRequired, FieldValueInvalid
  std::string message;
  std::string field;  // e.g. spec.replicas
};

struct ApiError {
  int http_code = 0;
  ApiReason reason = ApiReason::kUnknown;
  std::string reason_text;  // as sent ("" when the server sent none)
  std::string message;      // the server's text
  std::string details_name;
  std::string details_group;
  std::string details_kind;
  std::vector<StatusCause> causes;
  std::optional<std::chrono::seconds> retry_after;  // details.retryAfterSeconds or Retry-After

  // Converts to a Status (code as above, message = server text, this error as payload).
  Status ToStatus() const;
};

// Builds an ApiError from an HTTP error response. `body` is normally a metav1.Status; anything
// else (HTML from a proxy, empty) still gives a usable error from the code and the raw text.
// `retry_after_header` is the Retry-After header value, if any.
ApiError ApiErrorFromResponse(int http_code, std::string_view body,
                              std::string_view retry_after_header = "");
// Same, from the `object` of a watch ERROR event (a metav1.Status as JSON text).
ApiError ApiErrorFromStatusJson(std::string_view status_json);

// The ApiError carried by `status`, if it came from the API server.
std::optional<ApiError> GetApiError(const Status& status);

bool IsNotFound(const Status& s);
bool IsAlreadyExists(const Status& s);
bool IsConflict(const Status& s);
// 410 Gone or reason Expired: the resourceVersion is too old; relist.
bool IsExpired(const Status& s);
bool IsGone(const Status& s);  // same as IsExpired (client-go treats both alike)
bool IsForbidden(const Status& s);
bool IsUnauthorized(const Status& s);
bool IsInvalid(const Status& s);
bool IsBadRequest(const Status& s);
bool IsTooManyRequests(const Status& s);
bool IsTimeout(const Status& s);  // Timeout, ServerTimeout, 504
bool IsInternalError(const Status& s);
bool IsServiceUnavailable(const Status& s);
// The delta-seconds form of a Retry-After header ("3"); nullopt for anything else.
std::optional<std::chrono::seconds> ParseRetryAfterHeader(std::string_view header);

// Retry-After from a 429/503/ServerTimeout error, if the server suggested one.
std::optional<std::chrono::seconds> RetryAfter(const Status& s);

}  // namespace rdmastack::k8s
