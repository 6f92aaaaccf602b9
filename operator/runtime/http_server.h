#pragma once
// The manager's HTTP endpoints (Boost.Beast): the health probes over plain HTTP, /metrics over
// HTTPS (TLS 1.2+) when serving credentials are given, and admission webhooks (POST, HTTPS, with
// a certificate that is rotated while serving: UpdateTls).
//
// Handlers run on the server's threads. A handler that blocks (the metrics filter makes API calls
// on a cache miss) holds one thread; give such a server more than one (HttpServerOptions::threads)
// so that one slow request does not hold up the others. Stop() waits for running handlers.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "operator/runtime/bind_address.h"
#include "operator/runtime/connection_limiter.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::runtime {

struct HttpRequest {
  std::string method;         // "GET"
  std::string target;         // "/metrics?x=y"
  std::string path;           // "/metrics"
  std::string authorization;  // the Authorization header; "" when absent
  std::string content_type;   // the Content-Type header; "" when absent
  std::string body;           // at most HttpServerOptions::max_request_body bytes
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// A serving certificate chain (leaf first) and its private key, both PEM.
struct TlsServingCredentials {
  std::string cert_pem;
  std::string key_pem;
};

// How long a connection may keep the server waiting. What an unauthenticated peer can make the
// server hold is these times the connection limits.
struct HttpDeadlines {
  // A new connection must deliver its first complete request head, TLS handshake included,
  // this soon after it is accepted; a kept-alive one its next head this soon after that head's
  // first byte. A peer that connects and sends nothing, or a head a byte at a time, is closed
  // then (counted in rdmastack_listener_header_timeouts_total).
  std::chrono::milliseconds header{5'000};
  // How long a kept-alive connection may wait for the first byte of its next request.
  std::chrono::milliseconds idle{30'000};
};

struct HttpServerOptions {
  // HTTPS with these credentials; plain HTTP when unset.
  std::optional<TlsServingCredentials> tls;
  int threads = 1;
  // The largest request body accepted. A request declaring or sending more is answered 413 and its
  // connection closed, without calling a handler: the rest of the body is not parsed, so the
  // connection cannot carry another request. GET-only servers need no body; an admission webhook
  // server passes a few MiB (the API server sends whole objects).
  uint64_t max_request_body = 4096;
  // The listener's name in metrics and log lines: "probes", "metrics", "webhook".
  std::string listener = "http";
  // Connections open at once, in all and from one peer address, TLS handshake included. One more
  // is closed as soon as it is accepted, before its handshake (limited_acceptor.h). With the
  // deadlines and the body limit this bounds what unauthenticated peers can make the server hold
  // (about max_connections x max_request_body), and what one of them can take.
  ConnectionLimits connections;
  HttpDeadlines deadlines;
  // Where refusals and header timeouts are counted (rdmastack_listener_*); nowhere when null.
  MetricsRegistry* metrics = nullptr;
};

class HttpServer {
 public:
  HttpServer();
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Register before Start(). Handle serves GET and HEAD, HandlePost serves POST; a registered path
  // answers 405 to any other method, an unknown path 404. Registering a path again replaces its
  // handler and its methods.
  void Handle(const std::string& path, HttpHandler handler);
  void HandlePost(const std::string& path, HttpHandler handler);
  // Binds and starts serving on background threads. Fails on a bad address, a port in use, or
  // credentials that are not PEM or do not belong together.
  Status Start(const std::string& bind_address, HttpServerOptions options = {});
  // Serves new TLS handshakes with these credentials (a renewed certificate); connections already
  // established keep the certificate they were opened with. Checks the credentials as Start does
  // and, when they are bad, keeps serving the current ones. FailedPrecondition when the server was
  // not started with TLS. Safe to call while connections are being accepted, not concurrently
  // with Start or Stop.
  Status UpdateTls(const TlsServingCredentials& creds);
  // The bound port (useful with port 0); 0 before Start.
  uint16_t port() const;
  // Stops accepting, closes connections and joins the threads. Idempotent.
  void Stop();

  // Dispatches one request (used by the server and by tests).
  HttpResponse Dispatch(const HttpRequest& request) const;

 private:
  struct Route {
    std::vector<std::string> methods;  // those served; any other gets 405
    HttpHandler handler;
  };
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::map<std::string, Route> routes_;
};

}  // namespace rdmastack::runtime
