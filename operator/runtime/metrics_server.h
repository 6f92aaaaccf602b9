#pragma once
// /metrics as controller-runtime serves it: HTTPS (TLS 1.2+) with every scrape authenticated
// (TokenReview) and authorised (SubjectAccessReview, `get` on the non-resource URL /metrics);
// or, with secure = false, plain HTTP without authentication for local debugging.

#include <chrono>
#include <memory>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "operator/k8s/client.h"
#include "operator/runtime/http_server.h"
#include "operator/runtime/metrics.h"
#include "operator/runtime/metrics_auth.h"

namespace rdmastack::runtime {

struct MetricsServerOptions {
  // "0" (or "") disables the endpoint.
  std::string bind_address = ":8443";
  bool secure = true;
  // tls.crt and tls.key; "" = a self-signed certificate generated in memory at start.
  std::string cert_dir;
  ApiServerAuthorizerOptions auth;
  // One Prometheus keeps one connection per replica; 8 per address leave it its slots while one
  // pod holds silent connections (http_server.h).
  ConnectionLimits connections{.max_connections = 64, .max_connections_per_address = 8};
  HttpDeadlines deadlines;
};

// True for the bind addresses that mean "do not serve": "" and "0".
bool ServingDisabled(const std::string& bind_address);

class MetricsServer {
 public:
  // `client` makes the reviews (the operator's identity needs create on tokenreviews and
  // subjectaccessreviews); unused when not secure.
  MetricsServer(MetricsRegistry& registry, k8s::Client& client, Clock& clock,
                MetricsServerOptions options);

  // Loads or generates the certificate and starts serving; OK and nothing served when disabled.
  Status Start();
  void Stop();
  // The bound port; 0 when not serving.
  uint16_t port() const { return http_.port(); }

 private:
  MetricsRegistry& registry_;
  const MetricsServerOptions options_;
  ApiServerAuthorizer authorizer_;
  HttpServer http_;
};

}  // namespace rdmastack::runtime
