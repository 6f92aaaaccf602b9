// The webhook server's plumbing with a scripted API: it makes its certificate, publishes the CA in
// the MutatingWebhookConfiguration, answers AdmissionReviews over TLS that verify against that CA,
// and keeps answering while the certificate is renewed under it (marked TSAN: the server's
// threads, the renewal loop and the swap of the TLS context run at once).
#include "servers/webhook/webhook_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "controllers/workload/pod_webhook.h"
#include "crds/types/kinds.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/config.h"
#include "operator/runtime/informer.h"
#include "operator/runtime/testing/http_fetch.h"
#include "operator/k8s/testing/mock_client.h"
#include "operator/runtime/testing/silent_peers.h"

namespace rdmastack::webhook {
namespace {

using ::testing::_;
using ::testing::Invoke;
using ::testing::NiceMock;
using namespace std::chrono_literals;

// Secrets and the webhook configuration, kept in memory as the API server would.
class ScriptedApi {
 public:
  explicit ScriptedApi(NiceMock<k8s::testing::MockClient>& client) {
    auto parsed = k8s::JsonObject::Parse(
        R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration",
            "metadata":{"name":"injector"},
            "webhooks":[{"name":"other.example.com","clientConfig":{"url":"https://x"}},
                        {"name":"inject-clientprofile.rdmastack.io",
                         "clientConfig":{"url":"https://127.0.0.1/mutate-pods"}}]})");
    configuration_ = *parsed;
    ON_CALL(client, Get(_, _, _, _))
        .WillByDefault(Invoke([this](const k8s::ResourceType& type, std::string_view,
                                     std::string_view name,
                                     const k8s::GetOptions&) -> StatusOr<k8s::JsonObject> {
          std::lock_guard<std::mutex> l(mu_);
          if (type == k8s::kinds::MutatingWebhookConfiguration() && name == "injector")
            return configuration_;
          if (type == k8s::kinds::Secret() && name == "rdmastack-webhook-generated-tls" && secret_)
            return *secret_;
          return k8s::ApiErrorFromResponse(404,
                                           R"({"kind":"Status","reason":"NotFound","code":404})")
              .ToStatus();
        }));
    auto store = [this](const k8s::ResourceType& type, const k8s::JsonObject& object,
                        const k8s::WriteOptions&) -> StatusOr<k8s::JsonObject> {
      std::lock_guard<std::mutex> l(mu_);
      if (type == k8s::kinds::MutatingWebhookConfiguration()) {
        configuration_ = object;
        ++configuration_writes_;
      } else {
        secret_ = object;
        ++secret_writes_;
      }
      return object;
    };
    ON_CALL(client, Create(_, _, _)).WillByDefault(Invoke(store));
    ON_CALL(client, Update(_, _, _)).WillByDefault(Invoke(store));
  }

  std::string SecretValue(const char* key) const {
    std::lock_guard<std::mutex> l(mu_);
    if (!secret_) return "";
    auto v = k8s::DecodeBase64(secret_->GetString({"data", key}).value_or(""));
    return v.ok() ? *v : "";
  }
  std::string CaBundle(int webhook) const {
    std::lock_guard<std::mutex> l(mu_);
    return configuration_
        .GetString({"webhooks", std::to_string(webhook), "clientConfig", "caBundle"})
        .value_or("");
  }
  int configuration_writes() const {
    std::lock_guard<std::mutex> l(mu_);
    return configuration_writes_;
  }
  int secret_writes() const {
    std::lock_guard<std::mutex> l(mu_);
    return secret_writes_;
  }

 private:
  mutable std::mutex mu_;
  k8s::JsonObject configuration_;
  std::optional<k8s::JsonObject> secret_;
  int configuration_writes_ = 0;
  int secret_writes_ = 0;
};

constexpr char kReview[] = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",
  "request":{"uid":"u-1","kind":{"kind":"Pod"},"namespace":"ml","operation":"CREATE",
  "object":{"metadata":{"name":"p","labels":{"rdmastack.io/client-profile":"gpu"}},"spec":{}}}})";

TEST(WebhookServerTest, ServesOverTlsPublishesTheCaAndKeepsServingThroughRenewal) {
  NiceMock<k8s::testing::MockClient> client;
  ScriptedApi api(client);
  runtime::MetricsRegistry metrics;
  runtime::InformerOptions profiles_options;
  profiles_options.type = crd::kinds::ClientProfile();
  // Never started: the webhook answers that it is still loading profiles (503), which is enough
  // to see a whole AdmissionReview go through the server.
  runtime::Informer profiles(client, RealClock::Instance(), profiles_options);
  WebhookServerOptions options;
  options.bind_address = "127.0.0.1:0";
  options.namespace_ = "rdmastack-system";
  options.configuration_name = "injector";
  options.hosts = {"localhost"};
  options.cert_validity = 3s;  // renewed after 2 s
  options.check_interval = 200ms;
  options.retry_interval = 50ms;
  workload::PodWebhook pods(profiles, metrics);
  WebhookServer server(
      client, client, RealClock::Instance(), metrics, workload::kMutatePodsPath,
      [&pods](const runtime::HttpRequest& r) { return pods.Handle(r); }, options);
  server.Start();
  for (int i = 0; i < 200 && server.port() == 0; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_NE(server.port(), 0);

  const std::string ca = api.SecretValue("ca.crt");
  ASSERT_NE(ca, "");
  EXPECT_EQ(api.CaBundle(1), k8s::EncodeBase64(ca));
  EXPECT_EQ(api.CaBundle(0), "") << "another webhook's caBundle is not ours to set";
  EXPECT_EQ(api.configuration_writes(), 1);

  runtime::testing::FetchOptions post;
  post.tls = true;
  post.ca_pem = ca;
  post.method = "POST";
  post.body = kReview;
  const std::string first_cert = api.SecretValue("tls.crt");
  int answered = 0;
  std::string failures;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline &&
         (api.SecretValue("tls.crt") == first_cert || answered < 40)) {
    auto reply = runtime::testing::HttpFetch(server.port(), workload::kMutatePodsPath, post);
    if (!reply.ok()) {
      failures += reply.status().ToString() + "\n";
      continue;
    }
    ++answered;
    EXPECT_EQ(reply->status, 200);
    auto review = k8s::JsonObject::Parse(reply->body);
    ASSERT_TRUE(review.ok()) << reply->body;
    EXPECT_EQ(review->GetString({"response", "uid"}), "u-1");
    EXPECT_EQ(review->GetBool({"response", "allowed"}), false);
    EXPECT_EQ(review->GetInt({"response", "status", "code"}), 503);
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_NE(api.SecretValue("tls.crt"), first_cert) << "the certificate was never renewed";
  EXPECT_EQ(failures, "");
  EXPECT_GE(answered, 40);
  // Renewal keeps the CA: the caBundle is not written again.
  EXPECT_EQ(api.SecretValue("ca.crt"), ca);
  EXPECT_EQ(api.configuration_writes(), 1);
  EXPECT_GE(api.secret_writes(), 2);

  // A body that is no AdmissionReview is a 400, not a crash.
  post.body = "{}";
  auto bad = runtime::testing::HttpFetch(server.port(), workload::kMutatePodsPath, post);
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  EXPECT_EQ(bad->status, 400);
  server.Stop();
  EXPECT_EQ(server.port(), 0);
}

// A pod that opens connections to the webhook and sends nothing takes its address's share of
// the slots (8 of 32 by default), not all of them: the API server's AdmissionReview from another
// address is answered while the pod holds them. Before the per-address limit, 32 silent
// connections held every slot for 30 s and labelled pods could not be admitted.
TEST(WebhookServerTest, SilentConnectionsFromOnePodLeaveTheApiServerItsSlots) {
  NiceMock<k8s::testing::MockClient> client;
  ScriptedApi api(client);
  runtime::MetricsRegistry metrics;
  runtime::InformerOptions profiles_options;
  profiles_options.type = crd::kinds::ClientProfile();
  runtime::Informer profiles(client, RealClock::Instance(), profiles_options);
  WebhookServerOptions options;
  options.bind_address = "127.0.0.1:0";
  options.namespace_ = "rdmastack-system";
  options.configuration_name = "injector";
  options.hosts = {"localhost"};
  options.retry_interval = 50ms;
  workload::PodWebhook pods(profiles, metrics);
  WebhookServer server(
      client, client, RealClock::Instance(), metrics, workload::kMutatePodsPath,
      [&pods](const runtime::HttpRequest& r) { return pods.Handle(r); }, options);
  server.Start();
  for (int i = 0; i < 200 && server.port() == 0; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_NE(server.port(), 0);

  runtime::testing::SilentPeers pod("127.0.0.2", server.port(), 40);
  EXPECT_GE(pod.ClosedCount(500ms), 32) << "over its share: closed at once";
  runtime::testing::FetchOptions post;
  post.tls = true;
  post.ca_pem = api.SecretValue("ca.crt");
  post.method = "POST";
  post.body = kReview;
  for (int call = 0; call < 3; ++call) {
    auto reply = runtime::testing::HttpFetch(server.port(), workload::kMutatePodsPath, post);
    ASSERT_TRUE(reply.ok()) << "call " << call << ": " << reply.status().ToString();
    EXPECT_EQ(reply->status, 200);
  }
  server.Stop();
}

}  // namespace
}  // namespace rdmastack::webhook
