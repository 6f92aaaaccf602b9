// The REST client and HTTPS transport against a local Beast HTTPS server (test PKI): TLS
// verification, connection reuse, large bodies, chunked watch streams, timeouts and errors.

#include <gtest/gtest.h>

#include <thread>

#include "operator/k8s/api_error.h"
#include "operator/k8s/call_context.h"
#include "operator/k8s/client.h"
#include "operator/k8s/testing/https_test_server.h"
#include "operator/k8s/testing/test_kinds.h"

namespace rdmastack::k8s {
namespace {

using testing::TestPool;

using testing::Chunk;
using testing::ChunkedHeader;
using testing::HttpsTestServer;
using testing::JsonResponse;
using testing::LastChunk;
using testing::ReadFixture;
using testing::RecordedRequest;
using testing::ResponseWriter;

constexpr std::string_view kConfigMap =
    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"x","resourceVersion":"5"}})";

Config TestConfig(const HttpsTestServer& server) {
  Config config;
  config.server = server.url();
  config.tls.ca_pem = ReadFixture("pki/ca.pem");
  config.token = std::make_shared<StaticTokenSource>("s3cret");
  config.user_agent = DefaultUserAgent();
  config.request_timeout = std::chrono::seconds(10);
  return config;
}

ClientPtr MustClient(Config config) {
  auto client = NewRestClient(std::move(config));
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return client.ok() ? std::move(*client) : nullptr;
}

void ServeConfigMap(const RecordedRequest&, ResponseWriter& w) {
  w.Write(JsonResponse(200, kConfigMap));
}

TEST(TransportTest, VerifiesCertificateAndSendsCredentials) {
  HttpsTestServer server(ServeConfigMap);
  auto client = MustClient(TestConfig(server));
  auto got = client->Get(kinds::ConfigMap(), "x", "a");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->Name(), "a");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target, "/api/v1/namespaces/x/configmaps/a");
  EXPECT_EQ(requests[0].authorization, "Bearer s3cret");
  EXPECT_EQ(requests[0].user_agent, "rdmastack-operator/0.1.0");
  EXPECT_EQ(requests[0].client_cert_cn, "");
}

TEST(TransportTest, ChecksHostNamesAndIpSans) {
  HttpsTestServer server(ServeConfigMap);
  struct Case {
    std::string name;
    std::string server_url;
    std::string server_name;
    std::string ca;
    bool want_ok;
    std::string want_message_part;
  };
  const std::string port = std::to_string(server.port());
  const std::vector<Case> cases = {
      {"IP SAN", "https://127.0.0.1:" + port, "", "pki/ca.pem", true, ""},
      {"DNS SAN", "https://localhost:" + port, "", "pki/ca.pem", true, ""},
      {"name not in certificate", "https://127.0.0.1:" + port, "api.example.com", "pki/ca.pem",
       false, "certificate verification"},
      {"IP not in certificate", "https://127.0.0.1:" + port, "127.0.0.2", "pki/ca.pem", false,
       "certificate verification"},
      {"wrong CA", "https://127.0.0.1:" + port, "", "pki/other-ca.pem", false,
       "certificate verification"},
  };
  for (const auto& c : cases) {
    Config config = TestConfig(server);
    config.server = c.server_url;
    config.tls.server_name = c.server_name;
    config.tls.ca_pem = ReadFixture(c.ca);
    auto client = MustClient(config);
    auto got = client->Get(kinds::ConfigMap(), "x", "a");
    EXPECT_EQ(got.ok(), c.want_ok) << c.name << ": " << got.status().ToString();
    if (c.want_ok) continue;
    EXPECT_EQ(got.status().code(), StatusCode::kFailedPrecondition) << c.name;
    EXPECT_NE(got.status().message().find(c.want_message_part), std::string::npos)
        << c.name << ": " << got.status().message();
  }
}

TEST(TransportTest, InsecureOnlyWhenAskedFor) {
  HttpsTestServer server(ServeConfigMap);
  Config config = TestConfig(server);
  config.tls.ca_pem.clear();  // system store: does not know the test CA
  EXPECT_FALSE(MustClient(config)->Get(kinds::ConfigMap(), "x", "a").ok());
  config.tls.insecure_skip_verify = true;
  EXPECT_TRUE(MustClient(config)->Get(kinds::ConfigMap(), "x", "a").ok());
}

TEST(TransportTest, ClientCertificate) {
  HttpsTestServer server(ServeConfigMap);
  Config config = TestConfig(server);
  config.token.reset();
  config.tls.client_cert_pem = ReadFixture("pki/client.pem");
  config.tls.client_key_pem = ReadFixture("pki/client-key.pem");
  ASSERT_TRUE(MustClient(config)->Get(kinds::ConfigMap(), "x", "a").ok());
  EXPECT_EQ(server.requests().at(0).client_cert_cn, "test-user");
  EXPECT_EQ(server.requests().at(0).authorization, "");

  config.tls.client_key_pem = ReadFixture("pki/server-key.pem");  // not this certificate's key
  auto mismatched = NewRestClient(config);
  ASSERT_FALSE(mismatched.ok());
  EXPECT_NE(mismatched.status().message().find("does not match"), std::string::npos);
  config.tls.client_key_pem = "garbage";
  EXPECT_FALSE(NewRestClient(config).ok());
}

TEST(TransportTest, ReusesKeepAliveConnections) {
  HttpsTestServer server(ServeConfigMap);
  auto client = MustClient(TestConfig(server));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(client->Get(kinds::ConfigMap(), "x", "a").ok());
  EXPECT_EQ(server.connections(), 1);
}

TEST(TransportTest, RetriesOnceWhenAPooledConnectionWasClosed) {
  HttpsTestServer server([](const RecordedRequest&, ResponseWriter& w) {
    w.Write(JsonResponse(200, kConfigMap));
    w.CloseAfter();  // without "Connection: close": the client only learns on the next request
  });
  auto client = MustClient(TestConfig(server));
  ASSERT_TRUE(client->Get(kinds::ConfigMap(), "x", "a").ok());
  auto second = client->Get(kinds::ConfigMap(), "x", "a");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(server.connections(), 2);
}

TEST(TransportTest, ConnectionRefusedIsUnavailable) {
  int port = 0;
  {
    HttpsTestServer server(ServeConfigMap);
    port = server.port();
  }
  Config config;
  config.server = "https://127.0.0.1:" + std::to_string(port);
  config.tls.ca_pem = ReadFixture("pki/ca.pem");
  auto got = MustClient(config)->Get(kinds::ConfigMap(), "x", "a");
  EXPECT_EQ(got.status().code(), StatusCode::kUnavailable) << got.status().ToString();
}

TEST(TransportTest, UnresolvableHostNamesTheHost) {
  Config config;
  config.server = "https://no-such-host.invalid:6443";
  config.connect_timeout = std::chrono::milliseconds(500);
  auto got = MustClient(config)->Get(kinds::ConfigMap(), "x", "a");
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(got.status().code() == StatusCode::kUnavailable ||
              got.status().code() == StatusCode::kDeadlineExceeded)
      << got.status().ToString();
  EXPECT_NE(got.status().message().find("resolving no-such-host.invalid"), std::string::npos)
      << got.status().message();
}

TEST(TransportTest, ReadTimeout) {
  HttpsTestServer server([](const RecordedRequest&, ResponseWriter& w) { w.Stall(); });
  Config config = TestConfig(server);
  config.request_timeout = std::chrono::milliseconds(200);
  auto got = MustClient(config)->Get(kinds::ConfigMap(), "x", "a");
  EXPECT_EQ(got.status().code(), StatusCode::kDeadlineExceeded) << got.status().ToString();
  server.Stop();
}

TEST(TransportTest, ListBodiesFarAboveBeastDefaultLimit) {
  // ~26 MB, more than three times Beast's default 8 MiB body limit.
  std::string body =
      R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[)";
  const std::string filler(13'000, 'x');
  const int kItems = 2'000;
  for (int i = 0; i < kItems; ++i) {
    if (i > 0) body += ',';
    body += R"({"metadata":{"name":"cm-)" + std::to_string(i) +
            R"(","namespace":"x"},"data":{"v":")" + filler + "\"}}";
  }
  body += "]}";
  ASSERT_GT(body.size(), 3u * 8 * 1024 * 1024);
  HttpsTestServer server(
      [&body](const RecordedRequest&, ResponseWriter& w) { w.Write(JsonResponse(200, body)); });
  auto list = MustClient(TestConfig(server))->List(kinds::ConfigMap(), "x");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->items.size(), static_cast<size_t>(kItems));
  EXPECT_EQ(list->items.back().Name(), "cm-1999");
  EXPECT_EQ(list->items.back().GetString({"data", "v"})->size(), filler.size());
}

TEST(RestClientTest, ServerErrorsAreTyped) {
  HttpsTestServer server([](const RecordedRequest&, ResponseWriter& w) {
    w.Write(JsonResponse(
        404,
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"a\" not found","reason":"NotFound","details":{"name":"a","kind":"configmaps"},"code":404})"));
  });
  auto got = MustClient(TestConfig(server))->Get(kinds::ConfigMap(), "x", "a");
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(IsNotFound(got.status()));
  EXPECT_NE(got.status().message().find(R"(configmaps "a" not found)"), std::string::npos);
  EXPECT_NE(got.status().message().find("GET /api/v1/namespaces/x/configmaps/a"),
            std::string::npos);
}

TEST(RestClientTest, WritesUseTheRightVerbsPathsAndBodies) {
  HttpsTestServer server(ServeConfigMap);
  auto client = MustClient(TestConfig(server));
  JsonObject cm = *JsonObject::Parse(kConfigMap);
  JsonObject bare;  // no apiVersion/kind: the client fills them in
  bare.SetName("b");
  bare.SetNamespace("x");
  ASSERT_TRUE(client->Create(kinds::ConfigMap(), bare, {"mgr", false}).ok());
  ASSERT_TRUE(client->Update(kinds::ConfigMap(), cm).ok());
  ASSERT_TRUE(client->UpdateStatus(TestPool(), cm).ok());
  ASSERT_TRUE(
      client->Patch(kinds::ConfigMap(), "x", "a", PatchType::kMerge, R"({"data":{"k":"v"}})").ok());
  ASSERT_TRUE(client
                  ->Patch(kinds::ConfigMap(), "x", "a", PatchType::kJsonPatch,
                          R"([{"op":"remove","path":"/data"}])")
                  .ok());
  ASSERT_TRUE(client->Apply(kinds::ConfigMap(), bare, {"rdmastack", true, false}).ok());
  ASSERT_TRUE(client->ApplyStatus(TestPool(), bare, {"rdmastack", false, false}).ok());
  DeleteOptions del;
  del.precondition_uid = "u-1";
  del.propagation_policy = PropagationPolicy::kBackground;
  ASSERT_TRUE(client->Delete(kinds::ConfigMap(), "x", "a", del).ok());

  const auto r = server.requests();
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(r[0].method + " " + r[0].target,
            "POST /api/v1/namespaces/x/configmaps?fieldManager=mgr");
  EXPECT_NE(r[0].body.find(R"("apiVersion":"v1")"), std::string::npos);
  EXPECT_NE(r[0].body.find(R"("kind":"ConfigMap")"), std::string::npos);
  EXPECT_EQ(r[1].method + " " + r[1].target, "PUT /api/v1/namespaces/x/configmaps/a");
  EXPECT_NE(r[1].body.find(R"("resourceVersion":"5")"), std::string::npos);
  EXPECT_EQ(r[2].method + " " + r[2].target,
            "PUT /apis/rdmastack.io/v1alpha1/namespaces/x/gatewaypools/a/status");
  EXPECT_EQ(r[3].content_type, "application/merge-patch+json");
  EXPECT_EQ(r[4].content_type, "application/json-patch+json");
  EXPECT_EQ(r[5].method + " " + r[5].target,
            "PATCH /api/v1/namespaces/x/configmaps/b?fieldManager=rdmastack&force=true");
  EXPECT_EQ(r[5].content_type, "application/apply-patch+yaml");
  EXPECT_EQ(
      r[6].target,
      "/apis/rdmastack.io/v1alpha1/namespaces/x/gatewaypools/b/status?fieldManager=rdmastack");
  EXPECT_NE(r[6].body.find(R"("apiVersion":"rdmastack.io/v1alpha1")"), std::string::npos);
  EXPECT_EQ(r[7].method, "DELETE");
  EXPECT_NE(r[7].body.find(R"("preconditions":{"uid":"u-1"})"), std::string::npos);
  EXPECT_NE(r[7].body.find(R"("propagationPolicy":"Background")"), std::string::npos);

  // Refused locally, nothing sent.
  JsonObject no_ns;
  no_ns.SetName("c");
  EXPECT_EQ(client->Create(kinds::ConfigMap(), no_ns).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(client->Apply(kinds::ConfigMap(), bare, {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(server.requests().size(), 8u);
}

TEST(RestClientTest, ListAllFollowsContinueTokens) {
  HttpsTestServer server([](const RecordedRequest& r, ResponseWriter& w) {
    const bool second = r.target.find("continue=page2") != std::string::npos;
    w.Write(JsonResponse(
        200,
        second
            ? R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"11"},"items":[{"metadata":{"name":"p2"}}]})"
            : R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10","continue":"page2"},"items":[{"metadata":{"name":"p1"}}]})"));
  });
  ListOptions options;
  options.limit = 1;
  options.resource_version = "0";
  auto all = MustClient(TestConfig(server))->ListAll(kinds::Pod(), "", options);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->items.size(), 2u);
  EXPECT_EQ(all->items[1].Name(), "p2");
  EXPECT_EQ(all->items[1].Kind(), "Pod");
  const auto r = server.requests();
  EXPECT_EQ(r[0].target, "/api/v1/pods?limit=1&resourceVersion=0");
  EXPECT_EQ(r[1].target, "/api/v1/pods?limit=1&continue=page2");
}

TEST(WatchTest, ParsesChunkedStreamsAcrossChunkBoundaries) {
  const std::string e1 =
      R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}})";
  const std::string e2 =
      R"({"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"2"}}})";
  const std::string e3 =
      R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"3"}}})";
  const std::string e4 =
      R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (3)","reason":"Expired","code":410}})j";
  HttpsTestServer server([&](const RecordedRequest&, ResponseWriter& w) {
    w.Write(ChunkedHeader());
    const std::string first = e1 + "\n";
    w.Write(Chunk(first.substr(0, 10)));  // one event over three chunks
    w.Write(Chunk(first.substr(10, 20)));
    w.Write(Chunk(first.substr(30)));
    w.Write(Chunk(e2 + "\n" + e3 + "\n"));  // two events in one chunk
    w.Write(Chunk(e4));                     // last event without newline
    w.Write(LastChunk());
  });
  WatchOptions options;
  options.resource_version = "0";
  options.timeout_seconds = 300;
  auto watch = MustClient(TestConfig(server))->Watch(kinds::Pod(), "x", options);
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  std::vector<std::pair<WatchEventType, std::string>> got;
  while (true) {
    auto event = (*watch)->Next();
    ASSERT_TRUE(event.ok()) << event.status().ToString();
    if (!event->has_value()) break;
    got.emplace_back((*event)->type, std::string((*event)->object.ResourceVersion()));
    if ((*event)->type == WatchEventType::kError) {
      EXPECT_TRUE(IsExpired((*event)->ErrorStatus()));
    }
  }
  const std::vector<std::pair<WatchEventType, std::string>> want = {
      {WatchEventType::kAdded, "1"},
      {WatchEventType::kModified, "2"},
      {WatchEventType::kBookmark, "3"},
      {WatchEventType::kError, ""}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(server.requests().at(0).target,
            "/api/v1/namespaces/x/"
            "pods?watch=1&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=300");
}

TEST(WatchTest, ExpiredResourceVersionOnOpen) {
  HttpsTestServer server([](const RecordedRequest&, ResponseWriter& w) {
    w.Write(JsonResponse(
        410,
        R"j({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 2 (80)","reason":"Expired","code":410})j"));
  });
  WatchOptions options;
  options.resource_version = "2";
  auto watch = MustClient(TestConfig(server))->Watch(kinds::Pod(), "", options);
  ASSERT_FALSE(watch.ok());
  EXPECT_TRUE(IsExpired(watch.status()));
  EXPECT_NE(watch.status().message().find("too old resource version"), std::string::npos);
}

TEST(WatchTest, MalformedEventIsAnError) {
  HttpsTestServer server([](const RecordedRequest&, ResponseWriter& w) {
    w.Write(ChunkedHeader());
    w.Write(Chunk("{\"type\":\"ADDED\",\"obj\n"));
    w.Write(LastChunk());
  });
  auto watch = MustClient(TestConfig(server))->Watch(kinds::Pod(), "", {});
  ASSERT_TRUE(watch.ok());
  EXPECT_EQ((*watch)->Next().status().code(), StatusCode::kDataLoss);
}

TEST(WatchTest, InactivityTimeout) {
  HttpsTestServer server([](const RecordedRequest&, ResponseWriter& w) {
    w.Write(ChunkedHeader());
    w.Write(Chunk(R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})"
                  "\n"));
    w.Stall();  // a silently dead connection: no bytes, no FIN
  });
  WatchOptions options;
  options.inactivity_timeout = std::chrono::milliseconds(300);
  auto watch = MustClient(TestConfig(server))->Watch(kinds::Pod(), "", options);
  ASSERT_TRUE(watch.ok());
  auto first = (*watch)->Next();
  ASSERT_TRUE(first.ok() && first->has_value());
  auto second = (*watch)->Next();
  EXPECT_EQ(second.status().code(), StatusCode::kDeadlineExceeded) << second.status().ToString();
  server.Stop();
}

TEST(WatchTest, CancelFromAnotherThread) {
  HttpsTestServer server([](const RecordedRequest&, ResponseWriter& w) {
    w.Write(ChunkedHeader());
    w.Stall();
  });
  auto watch = MustClient(TestConfig(server))->Watch(kinds::Pod(), "", {});
  ASSERT_TRUE(watch.ok());
  WatchStream* stream = watch->get();
  std::thread canceller([stream] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stream->Cancel();
  });
  auto next = stream->Next();
  canceller.join();
  EXPECT_EQ(next.status().code(), StatusCode::kCancelled) << next.status().ToString();
  server.Stop();
}

TEST(WatchTest, ServerClosingMidEventIsAnError) {
  HttpsTestServer server([](const RecordedRequest&, ResponseWriter& w) {
    w.Write(ChunkedHeader());
    w.Write(Chunk(R"({"type":"ADDED","obj)"));
    w.CloseAfter();  // connection drops without the last chunk (apiserver restart)
  });
  auto watch = MustClient(TestConfig(server))->Watch(kinds::Pod(), "", {});
  ASSERT_TRUE(watch.ok());
  auto next = (*watch)->Next();
  EXPECT_EQ(next.status().code(), StatusCode::kUnavailable) << next.status().ToString();
}

TEST(TokenApiTest, ReviewAndRequest) {
  HttpsTestServer server([](const RecordedRequest& r, ResponseWriter& w) {
    if (r.target.find("tokenreviews") != std::string::npos) {
      w.Write(JsonResponse(
          201,
          R"({"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","status":{"authenticated":true,"user":{"username":"system:serviceaccount:s:agent"}}})"));
    } else {
      w.Write(JsonResponse(
          201,
          R"({"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1","status":{"token":"eyJhbGc","expirationTimestamp":"2030-01-01T00:00:00Z"}})"));
    }
  });
  auto client = MustClient(TestConfig(server));
  auto review = ReviewToken(*client, "tok", {"rdmastack"});
  ASSERT_TRUE(review.ok()) << review.status().ToString();
  EXPECT_EQ(review->GetBool({"authenticated"}), true);
  EXPECT_EQ(review->GetString({"user", "username"}), "system:serviceaccount:s:agent");
  auto token = RequestServiceAccountToken(*client, "s", "agent", {{"rdmastack"}, 600});
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  EXPECT_EQ(*token, "eyJhbGc");
  const auto r = server.requests();
  EXPECT_EQ(r[0].target, "/apis/authentication.k8s.io/v1/tokenreviews");
  EXPECT_NE(r[0].body.find(R"("spec":{"token":"tok","audiences":["rdmastack"]})"),
            std::string::npos)
      << r[0].body;
  EXPECT_EQ(r[1].target, "/api/v1/namespaces/s/serviceaccounts/agent/token");
  EXPECT_NE(r[1].body.find(R"("expirationSeconds":600)"), std::string::npos) << r[1].body;
}

TEST(TokenApiTest, NonResourceAccessReviewCarriesTheReviewedUser) {
  HttpsTestServer server([](const RecordedRequest&, ResponseWriter& w) {
    w.Write(JsonResponse(
        201,
        R"({"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","status":{"allowed":false,"reason":"no RBAC"}})"));
  });
  auto client = MustClient(TestConfig(server));
  auto user = JsonObject::Parse(
      R"({"username":"system:serviceaccount:s:scraper","uid":"u-1","groups":["system:serviceaccounts","system:authenticated"],"extra":{"authentication.kubernetes.io/pod-name":["p"]}})");
  ASSERT_TRUE(user.ok());
  auto review = ReviewNonResourceAccess(*client, *user, "get", "/metrics");
  ASSERT_TRUE(review.ok()) << review.status().ToString();
  EXPECT_EQ(review->GetBool({"allowed"}), false);
  EXPECT_EQ(review->GetString({"reason"}), "no RBAC");
  const auto r = server.requests();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].method, "POST");
  EXPECT_EQ(r[0].target, "/apis/authorization.k8s.io/v1/subjectaccessreviews");
  auto sent = JsonObject::Parse(r[0].body);
  ASSERT_TRUE(sent.ok()) << r[0].body;
  EXPECT_EQ(sent->GetString({"spec", "user"}), "system:serviceaccount:s:scraper");
  EXPECT_EQ(sent->GetString({"spec", "uid"}), "u-1");
  EXPECT_EQ(sent->GetArray({"spec", "groups"}).size(), 2u);
  EXPECT_TRUE(sent->Has({"spec", "extra", "authentication.kubernetes.io/pod-name"})) << r[0].body;
  EXPECT_EQ(sent->GetString({"spec", "nonResourceAttributes", "path"}), "/metrics");
  EXPECT_EQ(sent->GetString({"spec", "nonResourceAttributes", "verb"}), "get");
  EXPECT_FALSE(sent->Has({"spec", "resourceAttributes"}));
}

constexpr char kThrottled[] =
    R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","code":429})";

// Answers the first `throttled` requests with `status` (+ headers), then succeeds.
HttpsTestServer::Handler ThrottleThenServe(std::atomic<int>* seen, int throttled, int status,
                                           std::string headers) {
  return [=](const RecordedRequest&, ResponseWriter& w) {
    if ((*seen)++ < throttled) {
      w.Write(JsonResponse(status, kThrottled, headers));
    } else {
      w.Write(JsonResponse(201, kConfigMap));
    }
  };
}

JsonObject ConfigMapA() {
  return JsonObject::Parse(kConfigMap).value();
}

TEST(ThrottleRetryTest, TooManyRequestsWithRetryAfterIsRetriedWithTheSameBody) {
  std::atomic<int> seen{0};
  HttpsTestServer server(ThrottleThenServe(&seen, 2, 429, "Retry-After: 0\r\n"));
  auto created = MustClient(TestConfig(server))->Create(kinds::ConfigMap(), ConfigMapA());
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[2].body, requests[0].body);
}

TEST(ThrottleRetryTest, RetryAfterIsHonoured) {
  std::atomic<int> seen{0};
  HttpsTestServer server(ThrottleThenServe(&seen, 1, 429, "Retry-After: 1\r\n"));
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(MustClient(TestConfig(server))->Create(kinds::ConfigMap(), ConfigMapA()).ok());
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(950));
}

TEST(ThrottleRetryTest, WithoutRetryAfterTheErrorComesBackAtOnce) {
  std::atomic<int> seen{0};
  HttpsTestServer server(ThrottleThenServe(&seen, 1, 429, ""));
  auto created = MustClient(TestConfig(server))->Create(kinds::ConfigMap(), ConfigMapA());
  ASSERT_FALSE(created.ok());
  EXPECT_TRUE(IsTooManyRequests(created.status()));
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(ThrottleRetryTest, ServerErrorWithRetryAfterIsRetriedOneWithoutIsNot) {
  std::atomic<int> seen{0};
  HttpsTestServer retried(ThrottleThenServe(&seen, 1, 503, "Retry-After: 0\r\n"));
  EXPECT_TRUE(MustClient(TestConfig(retried))->Update(kinds::ConfigMap(), ConfigMapA()).ok());
  EXPECT_EQ(retried.requests().size(), 2u);

  std::atomic<int> seen500{0};
  HttpsTestServer not_retried(ThrottleThenServe(&seen500, 1, 500, ""));
  EXPECT_FALSE(MustClient(TestConfig(not_retried))->Create(kinds::ConfigMap(), ConfigMapA()).ok());
  EXPECT_EQ(not_retried.requests().size(), 1u);
}

TEST(ThrottleRetryTest, GivesUpAfterTheConfiguredRetriesAndSaysSo) {
  std::atomic<int> seen{0};
  HttpsTestServer server(ThrottleThenServe(&seen, 1000, 429, "Retry-After: 0\r\n"));
  Config config = TestConfig(server);
  config.max_throttle_retries = 3;
  auto got = MustClient(config)->Get(kinds::ConfigMap(), "x", "a");
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(IsTooManyRequests(got.status()));
  EXPECT_EQ(server.requests().size(), 4u);
  EXPECT_NE(got.status().message().find("after 3 retries"), std::string::npos)
      << got.status().message();
}

// After a 5xx the server may have acted on a POST or a merge PATCH; only a 429 (priority and
// fairness refused it unprocessed) lets those be sent again.
TEST(ThrottleRetryTest, NonIdempotentWritesAreNotRepeatedAfterAServerError) {
  std::atomic<int> seen{0};
  HttpsTestServer server(ThrottleThenServe(&seen, 1, 503, "Retry-After: 0\r\n"));
  auto client = MustClient(TestConfig(server));
  auto created = client->Create(kinds::ConfigMap(), ConfigMapA());
  EXPECT_FALSE(created.ok());
  EXPECT_EQ(server.requests().size(), 1u);

  seen = 0;
  auto merged = client->Patch(kinds::ConfigMap(), "x", "a", PatchType::kMerge, "{}");
  EXPECT_FALSE(merged.ok());
  EXPECT_EQ(server.requests().size(), 2u);

  seen = 0;
  auto applied = client->Patch(kinds::ConfigMap(), "x", "a", PatchType::kApply, "{}",
                               PatchOptions{.field_manager = "t"});
  EXPECT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(server.requests().size(), 4u);
}

TEST(ThrottleRetryTest, NoRetryStartsPastTheCallersDeadline) {
  std::atomic<int> seen{0};
  HttpsTestServer server(ThrottleThenServe(&seen, 1000, 429, "Retry-After: 5\r\n"));
  auto client = MustClient(TestConfig(server));
  CallScope scope(std::chrono::steady_clock::now() + std::chrono::seconds(1));
  const auto t0 = std::chrono::steady_clock::now();
  auto got = client->Get(kinds::ConfigMap(), "x", "a");
  EXPECT_TRUE(IsTooManyRequests(got.status())) << got.status().ToString();
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

// A POST on a pooled connection that breaks before any response byte may still have been read and
// acted on by the server: it is not sent a second time (a GET is:
// RetriesOnceWhenAPooledConnectionWasClosed).
TEST(TransportTest, APostThatMayHaveReachedTheServerIsNotResent) {
  HttpsTestServer server([](const RecordedRequest& r, ResponseWriter& w) {
    if (r.method == "POST") {
      w.CloseAfter();  // read it, answer nothing
      return;
    }
    w.Write(JsonResponse(200, kConfigMap));
  });
  auto client = MustClient(TestConfig(server));
  ASSERT_TRUE(client->Get(kinds::ConfigMap(), "x", "a").ok());
  auto created = client->Create(kinds::ConfigMap(), ConfigMapA());
  EXPECT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), StatusCode::kUnavailable) << created.status().ToString();
  int posts = 0;
  for (const auto& r : server.requests()) posts += r.method == "POST";
  EXPECT_EQ(posts, 1);
}

// A pooled connection the server closed while idle is dropped before use, so even a request that
// is never re-sent goes out on a fresh connection instead of failing.
TEST(TransportTest, AnIdleConnectionTheServerClosedIsNotUsed) {
  HttpsTestServer server([](const RecordedRequest&, ResponseWriter& w) {
    w.Write(JsonResponse(201, kConfigMap));
    w.CloseAfter();
  });
  auto client = MustClient(TestConfig(server));
  ASSERT_TRUE(client->Get(kinds::ConfigMap(), "x", "a").ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the FIN arrives
  auto created = client->Create(kinds::ConfigMap(), ConfigMapA());
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(server.connections(), 2);
}

TEST(CallContextTest, DeadlineCutsAHangingRequestShort) {
  HttpsTestServer server([](const RecordedRequest&, ResponseWriter& w) { w.Stall(); });
  auto client = MustClient(TestConfig(server));  // request_timeout 10 s
  const auto t0 = std::chrono::steady_clock::now();
  StatusOr<JsonObject> got = UnknownError("not called");
  {
    CallScope scope(t0 + std::chrono::milliseconds(300));
    got = client->Get(kinds::ConfigMap(), "x", "a");
  }
  EXPECT_EQ(got.status().code(), StatusCode::kDeadlineExceeded) << got.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  // Outside the scope the configured timeouts apply again.
  EXPECT_FALSE(CurrentCallContext().deadline.has_value());
  server.Stop();
}

TEST(CallContextTest, AnExpiredDeadlineSendsNothing) {
  HttpsTestServer server(ServeConfigMap);
  auto client = MustClient(TestConfig(server));
  CallScope scope(std::chrono::steady_clock::now() - std::chrono::milliseconds(1));
  EXPECT_EQ(client->Create(kinds::ConfigMap(), ConfigMapA()).status().code(),
            StatusCode::kDeadlineExceeded);
  EXPECT_EQ(server.requests().size(), 0u);
}

TEST(CallContextTest, NestedScopesOnlyShortenTheDeadline) {
  const auto now = std::chrono::steady_clock::now();
  CallScope outer(now + std::chrono::seconds(1));
  {
    CallScope inner(now + std::chrono::seconds(10));
    EXPECT_EQ(*CurrentCallContext().deadline, now + std::chrono::seconds(1));
  }
  {
    CallScope inner(now + std::chrono::milliseconds(10));
    EXPECT_EQ(*CurrentCallContext().deadline, now + std::chrono::milliseconds(10));
  }
  EXPECT_EQ(*CurrentCallContext().deadline, now + std::chrono::seconds(1));
}

TEST(CallContextTest, CancellationFromAnotherThreadAbortsTheCall) {
  HttpsTestServer server([](const RecordedRequest&, ResponseWriter& w) { w.Stall(); });
  auto client = MustClient(TestConfig(server));
  auto cancellation = std::make_shared<Cancellation>();
  std::thread canceller([cancellation] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancellation->Cancel();
  });
  StatusOr<JsonObject> got = UnknownError("not called");
  {
    CallScope scope(std::nullopt, cancellation);
    got = client->Get(kinds::ConfigMap(), "x", "a");
  }
  canceller.join();
  EXPECT_EQ(got.status().code(), StatusCode::kCancelled) << got.status().ToString();
  server.Stop();
}

TEST(CallContextTest, CancellationRunsLateRegistrationsAtOnceAndResetWaits) {
  Cancellation cancellation;
  int runs = 0;
  {
    auto registration = cancellation.OnCancel([&] { ++runs; });
    cancellation.Cancel();
    cancellation.Cancel();
    EXPECT_EQ(runs, 1);
  }
  auto late = cancellation.OnCancel([&] { ++runs; });
  EXPECT_EQ(runs, 2);
  EXPECT_TRUE(cancellation.cancelled());
}

}  // namespace
}  // namespace rdmastack::k8s
