#include "operator/runtime/metrics_auth.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using ::testing::_;
using ::testing::Invoke;
using ::testing::Return;

TEST(BearerTokenTest, ReadsTheHeaderLikeTheApiServer) {
  struct Case {
    std::string header;
    std::optional<std::string> want;
  };
  const Case cases[] = {
      {"Bearer abc", "abc"},         {"bearer abc", "abc"},       {"BEARER abc", "abc"},
      {"  Bearer abc \t", "abc"},    {"Bearer abc extra", "abc"}, {"", std::nullopt},
      {"Basic YTpi", std::nullopt},  {"Bearer", std::nullopt},    {"Bearer ", std::nullopt},
      {"Bearer  abc", std::nullopt},  // the token is what follows the first space: empty
      {"Bearerabc", std::nullopt},
  };
  for (const Case& c : cases) EXPECT_EQ(BearerToken(c.header), c.want) << '"' << c.header << '"';
}

TEST(NonResourceVerbTest, MapsMethodsLikeControllerRuntime) {
  EXPECT_EQ(NonResourceVerb("GET"), "get");
  EXPECT_EQ(NonResourceVerb("HEAD"), "get");
  EXPECT_EQ(NonResourceVerb("POST"), "create");
  EXPECT_EQ(NonResourceVerb("PUT"), "update");
  EXPECT_EQ(NonResourceVerb("PATCH"), "patch");
  EXPECT_EQ(NonResourceVerb("DELETE"), "delete");
  EXPECT_EQ(NonResourceVerb("OPTIONS"), "");
}

TEST(RefusalResponseTest, StatusAndTextPerDecision) {
  struct Case {
    AccessDecision decision;
    int status;
    std::string body;
  };
  const Case cases[] = {
      {AccessDecision::kUnauthenticated, 401, "Unauthorized\n"},
      {AccessDecision::kDenied, 403, "Authorization denied for user u\n"},
      {AccessDecision::kAuthenticationError, 500, "Authentication failed\n"},
      {AccessDecision::kAuthorizationError, 500, "Authorization for user u failed\n"},
  };
  for (const Case& c : cases) {
    const HttpResponse r = RefusalResponse({c.decision, "u", "why"});
    EXPECT_EQ(r.status, c.status) << c.body;
    EXPECT_EQ(r.body, c.body);
  }
}

class AccessDecisionCacheTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  AccessDecisionCache cache_{clock_, std::chrono::seconds(10), 2};
  const AccessResult allowed_{AccessDecision::kAllowed, "a", ""};
  const AccessResult denied_{AccessDecision::kDenied, "b", ""};
};

TEST_F(AccessDecisionCacheTest, KeepsDecisionsForTheTtlByTokenVerbAndPath) {
  cache_.Put("t1", "get", "/metrics", allowed_);
  ASSERT_TRUE(cache_.Get("t1", "get", "/metrics"));
  EXPECT_EQ(cache_.Get("t1", "get", "/metrics")->user, "a");
  EXPECT_FALSE(cache_.Get("t2", "get", "/metrics"));
  EXPECT_FALSE(cache_.Get("t1", "create", "/metrics"));
  EXPECT_FALSE(cache_.Get("t1", "get", "/other"));
  clock_.Advance(std::chrono::milliseconds(9999));
  EXPECT_TRUE(cache_.Get("t1", "get", "/metrics"));
  clock_.Advance(std::chrono::milliseconds(1));
  EXPECT_FALSE(cache_.Get("t1", "get", "/metrics"));
  EXPECT_EQ(cache_.size(), 0u);  // the expired entry is gone, not just hidden
}

TEST_F(AccessDecisionCacheTest, EvictsTheLeastRecentlyUsedWhenFull) {
  cache_.Put("t1", "get", "/metrics", allowed_);
  cache_.Put("t2", "get", "/metrics", denied_);
  ASSERT_TRUE(cache_.Get("t1", "get", "/metrics"));  // t1 is now the most recent
  cache_.Put("t3", "get", "/metrics", allowed_);
  EXPECT_EQ(cache_.size(), 2u);
  EXPECT_TRUE(cache_.Get("t1", "get", "/metrics"));
  EXPECT_FALSE(cache_.Get("t2", "get", "/metrics"));
  EXPECT_TRUE(cache_.Get("t3", "get", "/metrics"));
  cache_.Put("t3", "get", "/metrics", denied_);  // replacing does not grow the cache
  EXPECT_EQ(cache_.size(), 2u);
  EXPECT_EQ(cache_.Get("t3", "get", "/metrics")->decision, AccessDecision::kDenied);
}

StatusOr<k8s::JsonObject> Json(const char* text) {
  return k8s::JsonObject::Parse(text);
}

class ApiServerAuthorizerTest : public ::testing::Test {
 protected:
  // The API server's answers for TokenReview and SubjectAccessReview.
  void Answer(StatusOr<k8s::JsonObject> token_review, StatusOr<k8s::JsonObject> access_review) {
    ON_CALL(client_, Create(_, _, _))
        .WillByDefault(Invoke([this, token_review, access_review](
                                  const k8s::ResourceType& type, const k8s::JsonObject& body,
                                  const k8s::WriteOptions&) -> StatusOr<k8s::JsonObject> {
          if (type == k8s::kinds::TokenReview()) {
            ++token_reviews_;
            return token_review;
          }
          EXPECT_EQ(type, k8s::kinds::SubjectAccessReview());
          ++access_reviews_;
          last_access_review_ = body;
          return access_review;
        }));
  }

  FakeClock clock_;
  ::testing::NiceMock<k8s::testing::MockClient> client_;
  ApiServerAuthorizer authorizer_{client_, clock_, {std::chrono::seconds(10), 16}};
  int token_reviews_ = 0;
  int access_reviews_ = 0;
  k8s::JsonObject last_access_review_;
};

constexpr const char* kAuthenticated =
    R"({"status":{"authenticated":true,"user":{"username":"system:serviceaccount:ns:scraper","groups":["system:serviceaccounts"]}}})";

TEST_F(ApiServerAuthorizerTest, NoTokenIsUnauthenticatedWithoutAskingTheApiServer) {
  EXPECT_CALL(client_, Create(_, _, _)).Times(0);
  EXPECT_EQ(authorizer_.Authorize("", "get", "/metrics").decision,
            AccessDecision::kUnauthenticated);
}

TEST_F(ApiServerAuthorizerTest, AllowedUserIsReviewedOncePerTtl) {
  Answer(Json(kAuthenticated), Json(R"({"status":{"allowed":true,"reason":"RBAC: allowed"}})"));
  const AccessResult first = authorizer_.Authorize("tok", "get", "/metrics");
  EXPECT_EQ(first.decision, AccessDecision::kAllowed);
  EXPECT_EQ(first.user, "system:serviceaccount:ns:scraper");
  EXPECT_EQ(last_access_review_.GetString({"spec", "user"}), "system:serviceaccount:ns:scraper");
  EXPECT_EQ(last_access_review_.GetArray({"spec", "groups"}).size(), 1u);
  EXPECT_EQ(last_access_review_.GetString({"spec", "nonResourceAttributes", "verb"}), "get");
  EXPECT_EQ(last_access_review_.GetString({"spec", "nonResourceAttributes", "path"}), "/metrics");
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(authorizer_.Authorize("tok", "get", "/metrics").decision, AccessDecision::kAllowed);
  }
  EXPECT_EQ(token_reviews_, 1);
  EXPECT_EQ(access_reviews_, 1);
  clock_.Advance(std::chrono::seconds(10));
  EXPECT_EQ(authorizer_.Authorize("tok", "get", "/metrics").decision, AccessDecision::kAllowed);
  EXPECT_EQ(token_reviews_, 2);
  EXPECT_EQ(access_reviews_, 2);
}

TEST_F(ApiServerAuthorizerTest, RejectedTokenIsUnauthenticatedAndNotAuthorised) {
  Answer(Json(R"({"status":{"authenticated":false,"error":"token expired"}})"),
         Json(R"({"status":{"allowed":true}})"));
  const AccessResult r = authorizer_.Authorize("old", "get", "/metrics");
  EXPECT_EQ(r.decision, AccessDecision::kUnauthenticated);
  EXPECT_EQ(r.reason, "token expired");
  EXPECT_EQ(access_reviews_, 0);
  (void)authorizer_.Authorize("old", "get", "/metrics");
  EXPECT_EQ(token_reviews_, 1);  // cached like the API server's token cache caches failures
}

TEST_F(ApiServerAuthorizerTest, DeniedUserGetsTheReviewReason) {
  Answer(Json(kAuthenticated),
         Json(R"({"status":{"allowed":false,"reason":"no binding","evaluationError":"x"}})"));
  const AccessResult r = authorizer_.Authorize("tok", "get", "/metrics");
  EXPECT_EQ(r.decision, AccessDecision::kDenied);
  EXPECT_EQ(r.user, "system:serviceaccount:ns:scraper");
  EXPECT_EQ(r.reason, "no binding; x");
}

TEST_F(ApiServerAuthorizerTest, FailedReviewsAreErrorsAndNeverCached) {
  Answer(UnavailableError("connection refused"), Json(R"({"status":{"allowed":true}})"));
  EXPECT_EQ(authorizer_.Authorize("tok", "get", "/metrics").decision,
            AccessDecision::kAuthenticationError);
  EXPECT_EQ(authorizer_.Authorize("tok", "get", "/metrics").decision,
            AccessDecision::kAuthenticationError);
  EXPECT_EQ(token_reviews_, 2);

  Answer(Json(kAuthenticated), k8s::testing::ApiStatus(403, "Forbidden", "cannot create"));
  const AccessResult r = authorizer_.Authorize("tok", "get", "/metrics");
  EXPECT_EQ(r.decision, AccessDecision::kAuthorizationError);
  EXPECT_EQ(r.user, "system:serviceaccount:ns:scraper");
  (void)authorizer_.Authorize("tok", "get", "/metrics");
  EXPECT_EQ(access_reviews_, 2);
}

class ScriptedAuthorizer : public RequestAuthorizer {
 public:
  AccessResult Authorize(std::string_view token, std::string_view verb,
                         std::string_view path) override {
    seen = std::string(token) + " " + std::string(verb) + " " + std::string(path);
    return result;
  }
  AccessResult result;
  std::string seen;
};

TEST(WithAuthenticationAndAuthorizationTest, RunsTheHandlerOnlyWhenAllowed) {
  ScriptedAuthorizer authorizer;
  int calls = 0;
  HttpHandler handler = WithAuthenticationAndAuthorization(authorizer, [&](const HttpRequest&) {
    ++calls;
    return HttpResponse{200, "text/plain", "metrics"};
  });
  const HttpRequest request{"GET", "/metrics?x=1", "/metrics", "Bearer tok"};
  for (AccessDecision refused :
       {AccessDecision::kUnauthenticated, AccessDecision::kDenied,
        AccessDecision::kAuthenticationError, AccessDecision::kAuthorizationError}) {
    authorizer.result = {refused, "u", ""};
    const HttpResponse r = handler(request);
    EXPECT_EQ(r.status, RefusalResponse(authorizer.result).status);
    EXPECT_EQ(calls, 0);
  }
  EXPECT_EQ(authorizer.seen, "tok get /metrics");
  authorizer.result = {AccessDecision::kAllowed, "u", ""};
  EXPECT_EQ(handler(request).body, "metrics");
  EXPECT_EQ(calls, 1);
  (void)handler({"GET", "/metrics", "/metrics", "Basic YTpi"});
  EXPECT_EQ(authorizer.seen, " get /metrics");  // no bearer token: an empty one
}

}  // namespace
}  // namespace rdmastack::runtime
