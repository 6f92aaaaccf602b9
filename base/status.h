#pragma once
// Status and StatusOr in the style of Abseil: fallible functions return one of these instead of
// throwing. Exceptions from third-party libraries are caught at the seam and converted here.

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace rdmastack {

enum class StatusCode {
  kOk = 0,
  kCancelled,
  kUnknown,
  kInvalidArgument,
  kDeadlineExceeded,
  kNotFound,
  kAlreadyExists,
  kPermissionDenied,
  kResourceExhausted,
  kFailedPrecondition,
  kAborted,
  kOutOfRange,
  kUnimplemented,
  kInternal,
  kUnavailable,
  kDataLoss,
  kUnauthenticated,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "NotFound: message" — for logs and CLI output.
  std::string ToString() const;
  // Returns a copy whose message is "prefix: message"; keeps the code.
  Status WithContext(std::string_view prefix) const;

  // Typed side data keyed by a type URL, as absl::Status payloads (e.g. the Kubernetes API's
  // metav1.Status behind an error). Kept by WithContext.
  void SetPayload(std::string_view type_url, std::string payload);
  std::optional<std::string_view> GetPayload(std::string_view type_url) const;

  friend bool operator==(const Status&, const Status&) = default;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::vector<std::pair<std::string, std::string>> payloads_;
};

inline Status OkStatus() {
  return {};
}
inline Status InvalidArgumentError(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status NotFoundError(std::string m) {
  return {StatusCode::kNotFound, std::move(m)};
}
inline Status AlreadyExistsError(std::string m) {
  return {StatusCode::kAlreadyExists, std::move(m)};
}
inline Status FailedPreconditionError(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status UnavailableError(std::string m) {
  return {StatusCode::kUnavailable, std::move(m)};
}
inline Status InternalError(std::string m) {
  return {StatusCode::kInternal, std::move(m)};
}
inline Status DeadlineExceededError(std::string m) {
  return {StatusCode::kDeadlineExceeded, std::move(m)};
}
inline Status PermissionDeniedError(std::string m) {
  return {StatusCode::kPermissionDenied, std::move(m)};
}
inline Status UnauthenticatedError(std::string m) {
  return {StatusCode::kUnauthenticated, std::move(m)};
}
inline Status AbortedError(std::string m) {
  return {StatusCode::kAborted, std::move(m)};
}
inline Status ResourceExhaustedError(std::string m) {
  return {StatusCode::kResourceExhausted, std::move(m)};
}
inline Status OutOfRangeError(std::string m) {
  return {StatusCode::kOutOfRange, std::move(m)};
}
inline Status UnimplementedError(std::string m) {
  return {StatusCode::kUnimplemented, std::move(m)};
}
inline Status CancelledError(std::string m) {
  return {StatusCode::kCancelled, std::move(m)};
}
inline Status DataLossError(std::string m) {
  return {StatusCode::kDataLoss, std::move(m)};
}
inline Status UnknownError(std::string m) {
  return {StatusCode::kUnknown, std::move(m)};
}

namespace internal {
// Prints the status and aborts; out of line so that every StatusOr<T> shares one copy.
[[noreturn]] void DieReadingValueOf(const Status& status);
}  // namespace internal

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!status_.ok() && "StatusOr constructed from an OK status without a value");
    if (status_.ok())
      status_ = InternalError("StatusOr constructed from OK status without a value");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  // Reading the value of an error is a bug, not a state: it aborts with the status, as Abseil's
  // StatusOr does, instead of reading an empty optional.
  T& value() & { return Checked(); }
  const T& value() const& { return Checked(); }
  T&& value() && { return std::move(Checked()); }
  T& operator*() & { return Checked(); }
  const T& operator*() const& { return Checked(); }
  T* operator->() { return &Checked(); }
  const T* operator->() const { return &Checked(); }
  T value_or(T fallback) const { return ok() ? *value_ : std::move(fallback); }

 private:
  T& Checked() {
    if (!value_.has_value()) internal::DieReadingValueOf(status_);
    return *value_;
  }
  const T& Checked() const {
    if (!value_.has_value()) internal::DieReadingValueOf(status_);
    return *value_;
  }

  Status status_;
  std::optional<T> value_;
};

}  // namespace rdmastack

// Propagate a non-OK Status to the caller.
#define RDMASTACK_RETURN_IF_ERROR(expr)                    \
  do {                                                     \
    ::rdmastack::Status rdmastack_status_ = (expr);        \
    if (!rdmastack_status_.ok()) return rdmastack_status_; \
  } while (0)

#define RDMASTACK_CONCAT_INNER(a, b) a##b
#define RDMASTACK_CONCAT(a, b) RDMASTACK_CONCAT_INNER(a, b)
// RDMASTACK_ASSIGN_OR_RETURN(auto x, Foo()); — binds the value or returns the error.
#define RDMASTACK_ASSIGN_OR_RETURN(lhs, expr) \
  RDMASTACK_ASSIGN_OR_RETURN_IMPL(RDMASTACK_CONCAT(rdmastack_statusor_, __LINE__), lhs, expr)
#define RDMASTACK_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                    \
  if (!tmp.ok()) return tmp.status();                   \
  lhs = std::move(tmp).value()
