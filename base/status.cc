#include "base/status.h"

#include <cstdio>
#include <cstdlib>

namespace rdmastack {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kCancelled: return "Cancelled";
    case StatusCode::kUnknown: return "Unknown";
    case StatusCode::kInvalidArgument: return "InvalidArgument";
    case StatusCode::kDeadlineExceeded: return "DeadlineExceeded";
    case StatusCode::kNotFound: return "NotFound";
    case StatusCode::kAlreadyExists: return "AlreadyExists";
    case StatusCode::kPermissionDenied: return "PermissionDenied";
    case StatusCode::kResourceExhausted: return "ResourceExhausted";
    case StatusCode::kFailedPrecondition: return "FailedPrecondition";
    case StatusCode::kAborted: return "Aborted";
    case StatusCode::kOutOfRange: return "OutOfRange";
    case StatusCode::kUnimplemented: return "Unimplemented";
    case StatusCode::kInternal: return "Internal";
    case StatusCode::kUnavailable: return "Unavailable";
    case StatusCode::kDataLoss: return "DataLoss";
    case StatusCode::kUnauthenticated: return "Unauthenticated";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code_));
  out += ": ";
  out += message_;
  return out;
}

Status Status::WithContext(std::string_view prefix) const {
  if (ok()) return *this;
  std::string m(prefix);
  m += ": ";
  m += message_;
  Status out(code_, std::move(m));
  out.payloads_ = payloads_;
  return out;
}

void Status::SetPayload(std::string_view type_url, std::string payload) {
  if (ok()) return;  // an OK status carries nothing
  for (auto& [url, value] : payloads_) {
    if (url == type_url) {
      value = std::move(payload);
      return;
    }
  }
  payloads_.emplace_back(std::string(type_url), std::move(payload));
}

std::optional<std::string_view> Status::GetPayload(std::string_view type_url) const {
  for (const auto& [url, value] : payloads_) {
    if (url == type_url) return std::string_view(value);
  }
  return std::nullopt;
}

namespace internal {

void DieReadingValueOf(const Status& status) {
  std::fprintf(stderr, "StatusOr: value() of an error: %s\n", status.ToString().c_str());
  std::abort();
}

}  // namespace internal

}  // namespace rdmastack
