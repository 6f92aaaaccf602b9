#include "operator/k8s/api_error.h"

#include <gtest/gtest.h>

#include <functional>

namespace rdmastack::k8s {
namespace {

// Bodies as kube-apiserver sends them (metav1.Status).
struct Case {
  std::string name;
  int http_code;
  std::string body;
  std::string retry_after_header;
  StatusCode want_code;
  ApiReason want_reason;
  std::function<bool(const Status&)> predicate;
  std::string want_message_part;
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"not found", 404,
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"nope\" not found","reason":"NotFound","details":{"name":"nope","kind":"pods"},"code":404})",
       "", StatusCode::kNotFound, ApiReason::kNotFound, IsNotFound, R"(pods "nope" not found)"},
      {"already exists", 409,
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"a\" already exists","reason":"AlreadyExists","details":{"name":"a","kind":"configmaps"},"code":409})",
       "", StatusCode::kAlreadyExists, ApiReason::kAlreadyExists, IsAlreadyExists,
       "already exists"},
      {"conflict", 409,
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \"a\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"a","kind":"configmaps"},"code":409})",
       "", StatusCode::kAborted, ApiReason::kConflict, IsConflict, "the object has been modified"},
      {"expired list", 410,
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.","reason":"Expired","code":410})",
       "", StatusCode::kOutOfRange, ApiReason::kExpired, IsExpired, "too old"},
      {"gone", 410,
       R"j({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (1200)","reason":"Gone","code":410})j",
       "", StatusCode::kOutOfRange, ApiReason::kGone, IsGone, "too old resource version"},
      {"forbidden", 403,
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods is forbidden: User \"system:serviceaccount:t:nobody\" cannot list resource \"pods\" in API group \"\" in the namespace \"t\"","reason":"Forbidden","details":{"kind":"pods"},"code":403})",
       "", StatusCode::kPermissionDenied, ApiReason::kForbidden, IsForbidden,
       "cannot list resource"},
      {"unauthorized", 401,
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})",
       "", StatusCode::kUnauthenticated, ApiReason::kUnauthorized, IsUnauthorized, "Unauthorized"},
      {"invalid", 422,
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters","reason":"Invalid","details":{"name":"Bad_Name","kind":"ConfigMap","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters","field":"metadata.name"}]},"code":422})",
       "", StatusCode::kInvalidArgument, ApiReason::kInvalid, IsInvalid, "is invalid"},
      {"too many requests", 429,
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","details":{"retryAfterSeconds":3},"code":429})",
       "3", StatusCode::kResourceExhausted, ApiReason::kTooManyRequests, IsTooManyRequests,
       "Too many requests"},
      {"bad request", 400,
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server rejected our request for an unknown reason","reason":"BadRequest","code":400})",
       "", StatusCode::kInvalidArgument, ApiReason::kBadRequest, IsBadRequest, "unknown reason"},
      {"server timeout", 504,
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server was unable to return a response in the time allotted, but may still be processing the request","reason":"ServerTimeout","code":504})",
       "", StatusCode::kDeadlineExceeded, ApiReason::kServerTimeout, IsTimeout, "time allotted"},
      {"no reason: code decides", 404,
       R"({"kind":"Status","status":"Failure","message":"gone fishing","code":404})", "",
       StatusCode::kNotFound, ApiReason::kNotFound, IsNotFound, "gone fishing"},
      {"html from a proxy", 502, "<html><body>Bad Gateway</body></html>", "", StatusCode::kInternal,
       ApiReason::kUnknown, [](const Status& s) { return !IsNotFound(s) && !IsExpired(s); },
       "Bad Gateway"},
      {"empty 503 with Retry-After", 503, "", "7", StatusCode::kUnavailable,
       ApiReason::kServiceUnavailable, IsServiceUnavailable, "HTTP 503"},
  };
  return cases;
}

TEST(ApiErrorTest, MapsRecordedStatusBodies) {
  for (const auto& c : Cases()) {
    const ApiError error = ApiErrorFromResponse(c.http_code, c.body, c.retry_after_header);
    EXPECT_EQ(error.http_code, c.http_code) << c.name;
    EXPECT_EQ(error.reason, c.want_reason) << c.name;
    const Status status = error.ToStatus();
    EXPECT_EQ(status.code(), c.want_code) << c.name;
    EXPECT_TRUE(c.predicate(status)) << c.name;
    EXPECT_NE(status.message().find(c.want_message_part), std::string::npos)
        << c.name << ": " << status.message();
    // The payload survives added context.
    const Status wrapped = status.WithContext("GET /api/v1/pods");
    EXPECT_TRUE(c.predicate(wrapped)) << c.name;
    auto back = GetApiError(wrapped);
    ASSERT_TRUE(back.has_value()) << c.name;
    EXPECT_EQ(back->reason, c.want_reason) << c.name;
    EXPECT_EQ(back->message, error.message) << c.name;
  }
}

TEST(ApiErrorTest, PredicatesAreExclusive) {
  const std::vector<std::function<bool(const Status&)>> all = {
      IsNotFound,     IsAlreadyExists, IsConflict,        IsExpired,   IsForbidden,
      IsUnauthorized, IsInvalid,       IsTooManyRequests, IsBadRequest};
  for (const auto& c : Cases()) {
    const Status s = ApiErrorFromResponse(c.http_code, c.body, c.retry_after_header).ToStatus();
    int matches = 0;
    for (const auto& p : all) matches += p(s) ? 1 : 0;
    EXPECT_LE(matches, 1) << c.name;
  }
  // Errors that never reached the server are not API errors.
  EXPECT_FALSE(IsNotFound(NotFoundError("local file missing")));
  EXPECT_FALSE(IsExpired(OkStatus()));
  EXPECT_EQ(GetApiError(UnavailableError("connection refused")), std::nullopt);
}

TEST(ApiErrorTest, InvalidCarriesFieldCauses) {
  const auto& invalid = Cases()[7];
  const Status s = ApiErrorFromResponse(invalid.http_code, invalid.body).ToStatus();
  auto error = GetApiError(s);
  ASSERT_TRUE(error.has_value());
  ASSERT_EQ(error->causes.size(), 1u);
  EXPECT_EQ(error->causes[0].field, "metadata.name");
  EXPECT_EQ(error->causes[0].type, "FieldValueInvalid");
  EXPECT_EQ(error->details_name, "Bad_Name");
  EXPECT_EQ(error->details_kind, "ConfigMap");
}

TEST(ApiErrorTest, RetryAfterFromDetailsOrHeader) {
  const Status from_details = ApiErrorFromResponse(429, Cases()[8].body).ToStatus();
  EXPECT_EQ(RetryAfter(from_details), std::chrono::seconds(3));
  const Status from_header = ApiErrorFromResponse(503, "", "12").ToStatus();
  EXPECT_EQ(RetryAfter(from_header), std::chrono::seconds(12));
  const Status garbage_header = ApiErrorFromResponse(503, "", "soon").ToStatus();
  EXPECT_EQ(RetryAfter(garbage_header), std::nullopt);
  EXPECT_EQ(RetryAfter(NotFoundError("x")), std::nullopt);
}

TEST(ApiErrorTest, WatchErrorEventObject) {
  const ApiError e = ApiErrorFromStatusJson(
      R"j({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (73)","reason":"Expired","code":410})j");
  EXPECT_EQ(e.http_code, 410);
  EXPECT_TRUE(IsExpired(e.ToStatus()));
  const ApiError junk = ApiErrorFromStatusJson("[1,2]");
  EXPECT_EQ(junk.ToStatus().code(), StatusCode::kInternal);
  EXPECT_NE(junk.message.find("without a metav1.Status"), std::string::npos);
}

TEST(ApiErrorTest, ReasonNamesRoundTrip) {
  for (ApiReason r : {ApiReason::kNotFound, ApiReason::kExpired, ApiReason::kTooManyRequests,
                      ApiReason::kInvalid}) {
    EXPECT_EQ(ParseApiReason(ApiReasonName(r)), r);
  }
  EXPECT_EQ(ParseApiReason("SomethingNew"), ApiReason::kUnknown);
}

}  // namespace
}  // namespace rdmastack::k8s
