#include "operator/runtime/metrics_server.h"

#include <spdlog/spdlog.h>

#include "operator/runtime/serving_cert.h"

namespace rdmastack::runtime {
namespace {

// Handlers of a secure server wait on the API server on a cache miss; a few threads keep one
// slow review from holding up every other scrape.
constexpr int kSecureServerThreads = 4;

}  // namespace

bool ServingDisabled(const std::string& bind_address) {
  return bind_address.empty() || bind_address == "0";
}

MetricsServer::MetricsServer(MetricsRegistry& registry, k8s::Client& client, Clock& clock,
                             MetricsServerOptions options)
    : registry_(registry),
      options_(std::move(options)),
      authorizer_(client, clock, options_.auth) {}

Status MetricsServer::Start() {
  if (ServingDisabled(options_.bind_address)) return OkStatus();
  HttpHandler render = [this](const HttpRequest&) {
    return HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8", registry_.Render()};
  };
  HttpServerOptions server_options;
  server_options.listener = "metrics";
  server_options.connections = options_.connections;
  server_options.deadlines = options_.deadlines;
  server_options.metrics = &registry_;
  std::string source = "plain HTTP, no authentication";
  if (options_.secure) {
    if (options_.cert_dir.empty()) {
      RDMASTACK_ASSIGN_OR_RETURN(server_options.tls,
                                 SelfSignedServingCredentials(DefaultSelfSignedHosts()));
      source = "HTTPS, self-signed certificate";
    } else {
      auto loaded = LoadServingCredentials(options_.cert_dir);
      if (!loaded.ok()) return loaded.status().WithContext("metrics serving certificate");
      server_options.tls = std::move(*loaded);
      source = "HTTPS, certificate from " + options_.cert_dir;
    }
    RecordCertificateExpiry(registry_, "metrics", server_options.tls->cert_pem);
    server_options.threads = kSecureServerThreads;
    render = WithAuthenticationAndAuthorization(authorizer_, std::move(render));
  }
  http_.Handle("/metrics", std::move(render));
  RDMASTACK_RETURN_IF_ERROR(http_.Start(options_.bind_address, std::move(server_options))
                                .WithContext("metrics bind address"));
  spdlog::info("serving /metrics on port {} ({})", http_.port(), source);
  return OkStatus();
}

void MetricsServer::Stop() {
  http_.Stop();
}

}  // namespace rdmastack::runtime
