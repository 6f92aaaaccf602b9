#include "servers/webhook/webhook_server.h"

#include <spdlog/spdlog.h>

#include "crds/types/label_names.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/config.h"
#include "operator/runtime/serving_cert.h"

namespace rdmastack::webhook {
namespace {

agenthub::HubCertificateOptions CertificateOptions(const WebhookServerOptions& o) {
  agenthub::HubCertificateOptions c;
  c.namespace_ = o.namespace_;
  c.user_secret = o.user_secret;
  c.generated_secret = o.generated_secret;
  c.hosts = o.hosts;
  c.serving_validity = o.cert_validity;
  c.check_interval = o.check_interval;
  c.ca_common_name = "rdmastack-webhook-ca";
  c.log_name = "webhook";
  return c;
}

}  // namespace

Status PublishWebhookCaBundle(k8s::Client& reader, k8s::Client& writer,
                              const std::string& configuration, const std::string& ca_pem,
                              std::string* note) {
  auto object = reader.Get(k8s::kinds::MutatingWebhookConfiguration(), "", configuration);
  if (!object.ok()) {
    if (!k8s::IsNotFound(object.status())) return object.status();
    *note = "MutatingWebhookConfiguration " + configuration +
            " does not exist, so the API server does not call the webhook (the chart creates "
            "it; see docs/operations.md)";
    return OkStatus();
  }
  const std::string bundle = k8s::EncodeBase64(ca_pem);
  std::vector<k8s::JsonObject> webhooks = object->GetArray({"webhooks"});
  bool changed = false;
  size_t ours = 0;
  for (auto& w : webhooks) {
    if (w.GetString({"name"}) != kWebhookName) continue;
    ++ours;
    if (w.GetString({"clientConfig", "caBundle"}) == bundle) continue;
    Status set = w.SetString({"clientConfig", "caBundle"}, bundle);
    if (!set.ok()) return set.WithContext("MutatingWebhookConfiguration " + configuration);
    changed = true;
  }
  *note = ours == 0 ? "MutatingWebhookConfiguration " + configuration + " has no webhook named " +
                          kWebhookName + "; its caBundle is left alone"
                    : "";
  if (!changed) return OkStatus();
  RDMASTACK_RETURN_IF_ERROR(object->SetArray({"webhooks"}, webhooks));
  object->StripManagedFields();
  k8s::WriteOptions write;
  write.field_manager = crd::kFieldManager;
  auto written = writer.Update(k8s::kinds::MutatingWebhookConfiguration(), *object, write);
  if (!written.ok()) {
    return written.status().WithContext("setting the caBundle of MutatingWebhookConfiguration " +
                                        configuration);
  }
  spdlog::info("webhook: caBundle of MutatingWebhookConfiguration {} updated", configuration);
  return OkStatus();
}

WebhookServer::WebhookServer(k8s::Client& reader, k8s::Client& writer, Clock& clock,
                             runtime::MetricsRegistry& metrics, std::string path,
                             runtime::HttpHandler handler, WebhookServerOptions options)
    : reader_(reader),
      writer_(writer),
      options_(std::move(options)),
      path_(std::move(path)),
      metrics_(metrics),
      certificates_(reader, writer, clock, [this] {
        agenthub::HubCertificateOptions c = CertificateOptions(options_);
        c.publish_ca = [this](const std::string& ca_pem) {
          std::string note;
          Status s =
              PublishWebhookCaBundle(reader_, writer_, options_.configuration_name, ca_pem, &note);
          std::lock_guard<std::mutex> l(mu_);
          if (note != last_note_ && !note.empty()) spdlog::warn("webhook: {}", note);
          last_note_ = note;
          return s;
        };
        c.on_identity_change = [this](const agenthub::KeyAndCertificate& k) { OnIdentity(k); };
        return c;
      }()) {
  // The API server waits for this answer before it admits the pod (timeoutSeconds, 10 s).
  runtime::Histogram& duration =
      metrics
          .HistogramFamily(
              "rdmastack_webhook_admission_duration_seconds",
              "Time to answer one admission request, from the request read to the "
              "response ready.",
              {}, {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10})
          .With({});
  server_.HandlePost(
      path_, [handler = std::move(handler), &duration](const runtime::HttpRequest& request) {
        const auto start = std::chrono::steady_clock::now();
        runtime::HttpResponse response = handler(request);
        duration.Observe(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        return response;
      });
}

WebhookServer::~WebhookServer() {
  Stop();
}

void WebhookServer::OnIdentity(const agenthub::KeyAndCertificate& identity) {
  runtime::TlsServingCredentials creds{identity.cert_pem, identity.key_pem};
  runtime::RecordCertificateExpiry(metrics_, "webhook", identity.cert_pem);
  std::lock_guard<std::mutex> l(mu_);
  identity_ = creds;
  if (!serving_) return;
  if (Status s = server_.UpdateTls(creds); !s.ok()) {
    spdlog::error("webhook: cannot switch to the renewed certificate: {}", s.ToString());
  } else {
    spdlog::info("webhook: serving the renewed certificate to new connections");
  }
}

void WebhookServer::Start() {
  std::lock_guard<std::mutex> l(mu_);
  stopping_ = false;
  thread_ = std::thread([this] { Run(); });
}

void WebhookServer::Run() {
  bool warned = false;
  while (true) {
    Status s = certificates_.Reconcile();
    std::unique_lock<std::mutex> l(mu_);
    if (stopping_) return;
    if (s.ok() && identity_) break;
    if (!warned) {
      spdlog::warn("webhook: no serving certificate yet (retrying every {} ms): {}",
                   options_.retry_interval.count(), s.ToString());
      warned = true;
    }
    cv_.wait_for(l, options_.retry_interval, [this] { return stopping_; });
    if (stopping_) return;
  }
  std::unique_lock<std::mutex> l(mu_);
  runtime::HttpServerOptions server_options;
  server_options.tls = identity_;
  server_options.threads = options_.threads;
  // An AdmissionReview of a pod CREATE carries the pod (at most etcd's 1.5 MiB, under the API
  // server's 3 MiB request limit) and its envelope.
  server_options.max_request_body = 4 << 20;
  // Bounds what peers that never authenticate can make it hold (about 32 x 4 MiB by default), and
  // what one of them can take (WebhookServerOptions::connections).
  server_options.listener = "webhook";
  server_options.connections = options_.connections;
  server_options.deadlines = options_.deadlines;
  server_options.metrics = &metrics_;
  if (Status s = server_.Start(options_.bind_address, server_options); !s.ok()) {
    spdlog::error("webhook: cannot serve: {}", s.ToString());
    return;
  }
  serving_ = true;
  spdlog::info("webhook: serving {} on {} (port {}) with the certificate of {}", path_,
               options_.bind_address, server_.port(), certificates_.source());
  l.unlock();
  // Renewal from here on: HubCertificates re-checks every check_interval and calls OnIdentity.
  certificates_.StartChecking();
}

void WebhookServer::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  certificates_.Stop();
  server_.Stop();
  std::lock_guard<std::mutex> l(mu_);
  serving_ = false;
}

uint16_t WebhookServer::port() const {
  std::lock_guard<std::mutex> l(mu_);
  return serving_ ? server_.port() : 0;
}

}  // namespace rdmastack::webhook
