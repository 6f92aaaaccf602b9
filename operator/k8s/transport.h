#pragma once
// HTTPS to the API server: Beast + Asio + OpenSSL, TLS 1.2 or newer, certificate and host/IP
// verification, a keep-alive connection pool, connect/read timeouts, unlimited-size bodies and
// incremental reads for watch streams. No Beast type leaks out of this header.

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "base/status.h"
#include "operator/k8s/config.h"

namespace rdmastack::k8s {

struct HttpRequest {
  std::string method = "GET";  // GET, POST, PUT, PATCH, DELETE
  std::string target;          // path + query, e.g. /api/v1/pods?limit=500
  std::string body;
  std::string content_type;  // for requests with a body
  std::string accept = "application/json";
};

// Whether a request may be sent a second time after its bytes may have reached the server. POST
// creates (or acts) each time it arrives, and a merge/JSON/strategic PATCH may apply twice; GET,
// PUT (guarded by resourceVersion), DELETE and server-side apply converge.
bool IsSafeToResend(const HttpRequest& request);

struct HttpResponse {
  int status = 0;
  std::string body;
  std::string retry_after;  // Retry-After header, if any
};

// An open response whose body is read piece by piece (watch).
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  // Next piece of the body; std::nullopt at its end. kDeadlineExceeded when nothing arrived within
  // the inactivity timeout, kCancelled after Cancel().
  virtual StatusOr<std::optional<std::string>> Read() = 0;
  // Thread-safe; aborts a blocked Read().
  virtual void Cancel() = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // A whole request/response; any HTTP status is a successful exchange here.
  virtual StatusOr<HttpResponse> Send(const HttpRequest& request) = 0;
  // Sends the request and returns once the response header is in. A non-2xx response is read in
  // full and returned as `error_response` instead of a stream.
  struct StreamResult {
    std::unique_ptr<ResponseStream> stream;
    std::optional<HttpResponse> error_response;
  };
  virtual StatusOr<StreamResult> OpenStream(const HttpRequest& request,
                                            std::chrono::milliseconds inactivity_timeout) = 0;
};

struct TransportOptions {
  // Largest accepted response body. Lists of thousands of nodes are far beyond Beast's 8 MB (5,000
  // Nodes as served are about 105 MB); a broken or hostile server cannot make us buffer more.
  uint64_t max_body_bytes = uint64_t{1} << 30;
};

// Validates the TLS material (parses CA/cert/key, checks the key matches the certificate).
StatusOr<std::unique_ptr<Transport>> NewHttpsTransport(const Config& config,
                                                       TransportOptions options = {});

}  // namespace rdmastack::k8s
