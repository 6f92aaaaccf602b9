#pragma once
// The manager's one HTTP endpoint (Boost.Beast): /metrics, /healthz, /readyz and whatever else is
// registered. GET only; one I/O thread; handlers must be quick (they render in-memory state).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "operator/base/status.h"

namespace rdmastack::runtime {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};
using HttpHandler = std::function<HttpResponse()>;

// "127.0.0.1:8080", ":8081" (all interfaces), "[::1]:0" (port 0 picks a free port).
struct BindAddress {
  std::string host;
  uint16_t port = 0;
};
StatusOr<BindAddress> ParseBindAddress(const std::string& text);

class HttpServer {
 public:
  HttpServer();
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Register before Start(). Unknown paths get 404, other methods 405.
  void Handle(const std::string& path, HttpHandler handler);
  // Binds and starts serving on a background thread.
  Status Start(const std::string& bind_address);
  // The bound port (useful with port 0); 0 before Start.
  uint16_t port() const;
  // Stops accepting, closes connections and joins the thread. Idempotent.
  void Stop();

  // Dispatches one request path (used by the server and by tests).
  HttpResponse Dispatch(const std::string& method, const std::string& target) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::map<std::string, HttpHandler> handlers_;
};

}  // namespace rdmastack::runtime
