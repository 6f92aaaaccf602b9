#pragma once
// Serves the pod admission webhook over HTTPS on every operator replica (the API server reaches
// whichever the Service picks), with a certificate kept like the agent hub's: a user Secret, or a
// CA and serving certificate the operator makes in its own Secret and renews. The CA goes into
// the caBundle of the webhook's MutatingWebhookConfiguration (written only when it differs, and
// only by the leader: a standby's write is fenced and retried). A renewed certificate is swapped
// into the running server: new connections get it, none is refused.
//
// A replica that cannot get a certificate yet (a standby before the leader made the first one)
// keeps trying every two seconds and starts serving as soon as it can.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "operator/k8s/client.h"
#include "operator/runtime/http_server.h"
#include "operator/runtime/metrics.h"
#include "servers/agenthub/hub_certificates.h"

namespace rdmastack::webhook {

// The webhook's name in its configuration: the API server quotes it when a call fails.
inline constexpr char kWebhookName[] = "inject-clientprofile.rdmastack.io";

struct WebhookServerOptions {
  std::string bind_address = ":9444";
  std::string namespace_;  // of the certificate Secrets (the operator's namespace)
  std::string configuration_name = "rdmastack-clientprofile-injector";
  std::string user_secret = "rdmastack-webhook-tls";
  std::string generated_secret = "rdmastack-webhook-generated-tls";
  std::vector<std::string> hosts;  // names in the generated serving certificate
  std::chrono::seconds cert_validity = std::chrono::hours(24 * 90);
  Clock::Duration check_interval = std::chrono::minutes(1);
  std::chrono::milliseconds retry_interval{2000};
  int threads = 2;
  // Each connection may carry a 4 MiB AdmissionReview: 32 bound what unauthenticated peers can
  // make a replica hold to about 128 MiB. 8 per address leave the API server (a few keep-alive
  // connections per replica) its slots while one pod holds silent connections.
  runtime::ConnectionLimits connections{.max_connections = 32, .max_connections_per_address = 8};
  runtime::HttpDeadlines deadlines;
};

// Sets the caBundle of every webhook named kWebhookName in `configuration` to `ca_pem`; writes
// nothing when they all carry it already. A missing configuration is not an error (the webhook
// is then simply not called); the caller logs the returned note.
Status PublishWebhookCaBundle(k8s::Client& reader, k8s::Client& writer,
                              const std::string& configuration, const std::string& ca_pem,
                              std::string* note);

class WebhookServer {
 public:
  // Serves `handler` for POST `path` (the pod webhook's: controllers/workload/pod_webhook.h).
  WebhookServer(k8s::Client& reader, k8s::Client& writer, Clock& clock,
                runtime::MetricsRegistry& metrics, std::string path, runtime::HttpHandler handler,
                WebhookServerOptions options);
  ~WebhookServer();
  WebhookServer(const WebhookServer&) = delete;
  WebhookServer& operator=(const WebhookServer&) = delete;

  // Starts the background thread that gets a certificate and then serves. Never blocks on the
  // API server.
  void Start();
  void Stop();
  // The bound port once serving; 0 before.
  uint16_t port() const;

 private:
  void Run();
  void OnIdentity(const agenthub::KeyAndCertificate& identity);

  k8s::Client& reader_;
  k8s::Client& writer_;
  const WebhookServerOptions options_;
  const std::string path_;
  runtime::MetricsRegistry& metrics_;
  agenthub::HubCertificates certificates_;
  runtime::HttpServer server_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool serving_ = false;
  std::optional<runtime::TlsServingCredentials> identity_;
  std::string last_note_;
  std::thread thread_;
};

}  // namespace rdmastack::webhook
