#include "operator/runtime/metrics_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "operator/runtime/serving_cert.h"
#include "operator/runtime/testing/http_fetch.h"
#include "operator/k8s/testing/mock_client.h"

namespace rdmastack::runtime {
namespace {

using ::testing::_;
using ::testing::Invoke;

class MetricsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.CounterFamily("rdmastack_test_total", "A test counter", {"k"}).With({"v"}).Inc(7);
    ON_CALL(client_, Create(_, _, _))
        .WillByDefault(Invoke([this](const k8s::ResourceType& type, const k8s::JsonObject& body,
                                     const k8s::WriteOptions&) -> StatusOr<k8s::JsonObject> {
          ++reviews_;
          if (type == k8s::kinds::TokenReview()) {
            const bool known = body.GetString({"spec", "token"}) == "good";
            return k8s::JsonObject::Parse(
                known ? R"({"status":{"authenticated":true,"user":{"username":"scraper"}}})"
                      : R"({"status":{"authenticated":false}})");
          }
          return k8s::JsonObject::Parse(R"({"status":{"allowed":true}})");
        }));
  }
  static MetricsServerOptions Options() {
    MetricsServerOptions o;
    o.bind_address = "127.0.0.1:0";
    return o;
  }

  MetricsRegistry registry_;
  ::testing::NiceMock<k8s::testing::MockClient> client_;
  FakeClock clock_;
  int reviews_ = 0;
};

TEST_F(MetricsServerTest, SecureServesHttpsOnlyToAuthorisedScrapers) {
  MetricsServer server(registry_, client_, clock_, Options());
  ASSERT_TRUE(server.Start().ok());
  ASSERT_NE(server.port(), 0);
  auto anonymous = testing::HttpFetch(server.port(), "/metrics", {.tls = true});
  ASSERT_TRUE(anonymous.ok()) << anonymous.status().ToString();
  EXPECT_EQ(anonymous->status, 401);
  EXPECT_EQ(anonymous->body, "Unauthorized\n");
  EXPECT_EQ(reviews_, 0);
  auto unknown = testing::HttpFetch(server.port(), "/metrics", {.tls = true, .bearer_token = "x"});
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->status, 401);

  auto good = testing::HttpFetch(server.port(), "/metrics", {.tls = true, .bearer_token = "good"});
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ(good->status, 200);
  EXPECT_EQ(good->content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(good->body.find("rdmastack_test_total{k=\"v\"} 7\n"), std::string::npos) << good->body;
  auto other = testing::HttpFetch(server.port(), "/other", {.tls = true});
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->status, 404);
  EXPECT_FALSE(testing::HttpFetch(server.port(), "/metrics").ok());  // plain HTTP: no
  server.Stop();
}

TEST_F(MetricsServerTest, InsecureServesPlainHttpWithoutReviews) {
  MetricsServerOptions o = Options();
  o.secure = false;
  MetricsServer server(registry_, client_, clock_, o);
  ASSERT_TRUE(server.Start().ok());
  auto reply = testing::HttpFetch(server.port(), "/metrics");
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->status, 200);
  EXPECT_NE(reply->body.find("rdmastack_test_total{k=\"v\"} 7\n"), std::string::npos);
  EXPECT_EQ(reviews_, 0);
}

TEST_F(MetricsServerTest, ZeroOrEmptyBindAddressServesNothing) {
  for (const char* address : {"0", ""}) {
    MetricsServerOptions o = Options();
    o.bind_address = address;
    MetricsServer server(registry_, client_, clock_, o);
    EXPECT_TRUE(server.Start().ok());
    EXPECT_EQ(server.port(), 0);
  }
}

TEST_F(MetricsServerTest, ServesTheCertificateFromCertDir) {
  auto creds = SelfSignedServingCredentials({"localhost"});
  ASSERT_TRUE(creds.ok());
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("metrics-server-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tls.crt") << creds->cert_pem;
  std::ofstream(dir / "tls.key") << creds->key_pem;
  MetricsServerOptions o = Options();
  o.cert_dir = dir.string();
  MetricsServer server(registry_, client_, clock_, o);
  ASSERT_TRUE(server.Start().ok());
  auto verified = testing::HttpFetch(
      server.port(), "/metrics", {.tls = true, .bearer_token = "good", .ca_pem = creds->cert_pem});
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  EXPECT_EQ(verified->status, 200);
  server.Stop();

  std::filesystem::remove(dir / "tls.key");
  MetricsServer broken(registry_, client_, clock_, o);
  const Status s = broken.Start();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("metrics serving certificate"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find((dir / "tls.key").string()), std::string::npos) << s.ToString();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rdmastack::runtime
