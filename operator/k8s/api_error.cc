#include "operator/k8s/api_error.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>
#include <charconv>
#include <utility>

#include "base/json_parse.h"

namespace rdmastack::k8s {
namespace {

// The payload key under which an ApiError travels inside a Status.
constexpr std::string_view kPayloadUrl = "type.rdmastack.io/k8s.ApiError";

constexpr std::array<std::pair<ApiReason, std::string_view>, 18> kReasonNames = {{
    {ApiReason::kNotFound, "NotFound"},
    {ApiReason::kAlreadyExists, "AlreadyExists"},
    {ApiReason::kConflict, "Conflict"},
    {ApiReason::kGone, "Gone"},
    {ApiReason::kExpired, "Expired"},
    {ApiReason::kForbidden, "Forbidden"},
    {ApiReason::kUnauthorized, "Unauthorized"},
    {ApiReason::kInvalid, "Invalid"},
    {ApiReason::kBadRequest, "BadRequest"},
    {ApiReason::kMethodNotAllowed, "MethodNotAllowed"},
    {ApiReason::kNotAcceptable, "NotAcceptable"},
    {ApiReason::kUnsupportedMediaType, "UnsupportedMediaType"},
    {ApiReason::kRequestEntityTooLarge, "RequestEntityTooLarge"},
    {ApiReason::kTooManyRequests, "TooManyRequests"},
    {ApiReason::kTimeout, "Timeout"},
    {ApiReason::kServerTimeout, "ServerTimeout"},
    {ApiReason::kInternalError, "InternalError"},
    {ApiReason::kServiceUnavailable, "ServiceUnavailable"},
}};

// When the server sent no reason (or an unknown one) the HTTP code decides, as in
// apimachinery's reasonForCode.
ApiReason ReasonForCode(int code) {
  switch (code) {
    case 400: return ApiReason::kBadRequest;
    case 401: return ApiReason::kUnauthorized;
    case 403: return ApiReason::kForbidden;
    case 404: return ApiReason::kNotFound;
    case 405: return ApiReason::kMethodNotAllowed;
    case 406: return ApiReason::kNotAcceptable;
    case 409: return ApiReason::kConflict;
    case 410: return ApiReason::kGone;
    case 413: return ApiReason::kRequestEntityTooLarge;
    case 415: return ApiReason::kUnsupportedMediaType;
    case 422: return ApiReason::kInvalid;
    case 429: return ApiReason::kTooManyRequests;
    case 500: return ApiReason::kInternalError;
    case 503: return ApiReason::kServiceUnavailable;
    case 504: return ApiReason::kServerTimeout;
    default: return ApiReason::kUnknown;
  }
}

StatusCode CodeFor(ApiReason reason, int http_code) {
  switch (reason) {
    case ApiReason::kNotFound: return StatusCode::kNotFound;
    case ApiReason::kAlreadyExists: return StatusCode::kAlreadyExists;
    case ApiReason::kConflict: return StatusCode::kAborted;
    case ApiReason::kGone:
    case ApiReason::kExpired: return StatusCode::kOutOfRange;
    case ApiReason::kForbidden: return StatusCode::kPermissionDenied;
    case ApiReason::kUnauthorized: return StatusCode::kUnauthenticated;
    case ApiReason::kInvalid:
    case ApiReason::kBadRequest:
    case ApiReason::kNotAcceptable:
    case ApiReason::kUnsupportedMediaType:
    case ApiReason::kRequestEntityTooLarge: return StatusCode::kInvalidArgument;
    case ApiReason::kMethodNotAllowed: return StatusCode::kUnimplemented;
    case ApiReason::kTooManyRequests: return StatusCode::kResourceExhausted;
    case ApiReason::kTimeout:
    case ApiReason::kServerTimeout: return StatusCode::kDeadlineExceeded;
    case ApiReason::kServiceUnavailable: return StatusCode::kUnavailable;
    case ApiReason::kInternalError: return StatusCode::kInternal;
    case ApiReason::kUnknown: break;
  }
  if (http_code >= 500) return StatusCode::kInternal;
  if (http_code >= 400) return StatusCode::kInvalidArgument;
  return StatusCode::kUnknown;
}

std::string StringField(const rapidjson::Value& obj, const char* name) {
  if (!obj.IsObject()) return {};
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || !it->value.IsString()) return {};
  return {it->value.GetString(), it->value.GetStringLength()};
}

// Fills `error` from a metav1.Status document; returns false if it is not one.
bool FillFromStatus(const rapidjson::Document& doc, ApiError& error) {
  if (!doc.IsObject()) return false;
  if (StringField(doc, "kind") != "Status" && !doc.HasMember("reason") &&
      !doc.HasMember("message")) {
    return false;
  }
  error.reason_text = StringField(doc, "reason");
  error.message = StringField(doc, "message");
  auto code = doc.FindMember("code");
  if (code != doc.MemberEnd() && code->value.IsInt() && code->value.GetInt() != 0) {
    if (error.http_code == 0) error.http_code = code->value.GetInt();
  }
  auto details = doc.FindMember("details");
  if (details != doc.MemberEnd() && details->value.IsObject()) {
    const auto& d = details->value;
    error.details_name = StringField(d, "name");
    error.details_group = StringField(d, "group");
    error.details_kind = StringField(d, "kind");
    auto retry = d.FindMember("retryAfterSeconds");
    if (retry != d.MemberEnd() && retry->value.IsInt64() && retry->value.GetInt64() > 0) {
      error.retry_after = std::chrono::seconds(retry->value.GetInt64());
    }
    auto causes = d.FindMember("causes");
    if (causes != d.MemberEnd() && causes->value.IsArray()) {
      for (const auto& c : causes->value.GetArray()) {
        error.causes.push_back(
            {StringField(c, "reason"), StringField(c, "message"), StringField(c, "field")});
      }
    }
  }
  return true;
}

void Finish(ApiError& error, std::string_view raw_body) {
  error.reason = ParseApiReason(error.reason_text);
  if (error.reason == ApiReason::kUnknown) error.reason = ReasonForCode(error.http_code);
  if (error.message.empty()) {
    std::string_view text = raw_body.substr(0, 512);
    error.message = "the server responded with HTTP " + std::to_string(error.http_code);
    if (!text.empty()) {
      error.message += ": ";
      error.message += text;
    }
  }
}

// Serializes as a metav1.Status, so the payload reads back through the same parser.
std::string ToStatusJson(const ApiError& e) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto field = [&w](const char* key, const std::string& value) {
    w.Key(key);
    w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
  };
  w.StartObject();
  field("kind", "Status");
  w.Key("code");
  w.Int(e.http_code);
  field("reason", e.reason_text);
  field("message", e.message);
  w.Key("details");
  w.StartObject();
  field("name", e.details_name);
  field("group", e.details_group);
  field("kind", e.details_kind);
  if (e.retry_after) {
    w.Key("retryAfterSeconds");
    w.Int64(e.retry_after->count());
  }
  w.Key("causes");
  w.StartArray();
  for (const auto& c : e.causes) {
    w.StartObject();
    field("reason", c.type);
    field("message", c.message);
    field("field", c.field);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

ApiReason ReasonOf(const Status& s) {
  if (s.ok()) return ApiReason::kUnknown;
  auto e = GetApiError(s);
  return e ? e->reason : ApiReason::kUnknown;
}

}  // namespace

std::optional<std::chrono::seconds> ParseRetryAfterHeader(std::string_view header) {
  // Only the delta-seconds form; the server never sends an HTTP date here.
  while (!header.empty() && header.front() == ' ') header.remove_prefix(1);
  int64_t seconds = 0;
  auto [ptr, ec] = std::from_chars(header.data(), header.data() + header.size(), seconds);
  if (ec != std::errc() || ptr == header.data() || seconds < 0) return std::nullopt;
  return std::chrono::seconds(seconds);
}

std::string_view ApiReasonName(ApiReason reason) {
  for (const auto& [r, name] : kReasonNames) {
    if (r == reason) return name;
  }
  return "Unknown";
}

ApiReason ParseApiReason(std::string_view reason) {
  for (const auto& [r, name] : kReasonNames) {
    if (name == reason) return r;
  }
  return ApiReason::kUnknown;
}

Status ApiError::ToStatus() const {
  Status status(CodeFor(reason, http_code), message);
  status.SetPayload(kPayloadUrl, ToStatusJson(*this));
  return status;
}

ApiError ApiErrorFromResponse(int http_code, std::string_view body,
                              std::string_view retry_after_header) {
  ApiError error;
  error.http_code = http_code;
  rapidjson::Document doc;
  bool is_status = ParseJsonDocument(doc, body).ok() && FillFromStatus(doc, error);
  error.http_code = http_code;  // the transport's code wins over the body's
  if (!error.retry_after && !retry_after_header.empty()) {
    error.retry_after = ParseRetryAfterHeader(retry_after_header);
  }
  Finish(error, is_status ? std::string_view() : body);
  return error;
}

ApiError ApiErrorFromStatusJson(std::string_view status_json) {
  ApiError error;
  rapidjson::Document doc;
  if (!ParseJsonDocument(doc, status_json).ok() || !FillFromStatus(doc, error)) {
    error.http_code = 500;
    error.reason_text = "InternalError";
    error.message =
        "watch ERROR event without a metav1.Status: " + std::string(status_json.substr(0, 512));
  }
  Finish(error, {});
  return error;
}

std::optional<ApiError> GetApiError(const Status& status) {
  auto payload = status.GetPayload(kPayloadUrl);
  if (!payload) return std::nullopt;
  rapidjson::Document doc;
  ApiError error;
  if (!ParseJsonDocument(doc, *payload).ok() || !FillFromStatus(doc, error)) return std::nullopt;
  Finish(error, {});
  return error;
}

bool IsNotFound(const Status& s) {
  return ReasonOf(s) == ApiReason::kNotFound;
}
bool IsAlreadyExists(const Status& s) {
  return ReasonOf(s) == ApiReason::kAlreadyExists;
}
bool IsConflict(const Status& s) {
  return ReasonOf(s) == ApiReason::kConflict;
}
bool IsExpired(const Status& s) {
  auto r = ReasonOf(s);
  return r == ApiReason::kExpired || r == ApiReason::kGone;
}
bool IsGone(const Status& s) {
  return IsExpired(s);
}
bool IsForbidden(const Status& s) {
  return ReasonOf(s) == ApiReason::kForbidden;
}
bool IsUnauthorized(const Status& s) {
  return ReasonOf(s) == ApiReason::kUnauthorized;
}
bool IsInvalid(const Status& s) {
  return ReasonOf(s) == ApiReason::kInvalid;
}
bool IsBadRequest(const Status& s) {
  return ReasonOf(s) == ApiReason::kBadRequest;
}
bool IsTooManyRequests(const Status& s) {
  return ReasonOf(s) == ApiReason::kTooManyRequests;
}
bool IsTimeout(const Status& s) {
  auto r = ReasonOf(s);
  return r == ApiReason::kTimeout || r == ApiReason::kServerTimeout;
}
bool IsInternalError(const Status& s) {
  return ReasonOf(s) == ApiReason::kInternalError;
}
bool IsServiceUnavailable(const Status& s) {
  return ReasonOf(s) == ApiReason::kServiceUnavailable;
}

std::optional<std::chrono::seconds> RetryAfter(const Status& s) {
  auto e = GetApiError(s);
  if (!e) return std::nullopt;
  return e->retry_after;
}

}  // namespace rdmastack::k8s
