#pragma once
// A minimal HTTP/1.1 client seam: one request, one response, one deadline. The S3 client and the
// readiness probe talk to this interface; unit tests substitute a fake.
//
// Transport failures come back as Status codes the probe can classify:
//   kUnavailable       — connection refused / host unreachable / name not resolvable
//   kDeadlineExceeded  — the deadline passed (connect, write or read)
//   kDataLoss          — the peer answered something that is not HTTP, or TLS failed (untrusted
//                        certificate, wrong host name, plain HTTP on a TLS port)

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "lib/s3/sigv4.h"

namespace rdmastack::s3 {

struct Endpoint {
  std::string scheme;  // "http" or "https"
  std::string host;
  uint16_t port = 0;
  // Value of the Host header: host, plus :port when it is not the scheme's default.
  std::string HostHeader() const;
  std::string ToString() const;
};

// "http://127.0.0.1:7070", "https://gw.example:7071" (a trailing '/' is allowed; a path is not).
StatusOr<Endpoint> ParseEndpoint(std::string_view url);

struct HttpRequest {
  std::string method;
  std::string target;  // already-encoded path plus optional "?query"
  KeyValues headers;
  std::string body;
};

struct HttpResponse {
  int status = 0;
  KeyValues headers;
  std::string body;
  // First header with this name (case-insensitive), or "".
  std::string Header(std::string_view name) const;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual StatusOr<HttpResponse> RoundTrip(const Endpoint& endpoint, const HttpRequest& request,
                                           std::chrono::milliseconds timeout) = 0;
};

struct TlsOptions {
  // PEM bundle to verify the gateway's certificate; empty (and no ca_pem) = the system trust
  // store.
  std::string ca_file;
  // The same, given as PEM text (a CA read from a Secret); used when ca_file is empty.
  std::string ca_pem;
  // The name or IP the certificate must be for, when it is not the host dialled (a probe on the
  // loopback address checks the certificate clients see at the node's address).
  std::string verify_name;
};

// Boost.Beast over a fresh TCP (or TLS, for https endpoints) connection per request. The peer's
// certificate is always verified, including its host name or IP address.
class BeastHttpTransport final : public HttpTransport {
 public:
  explicit BeastHttpTransport(TlsOptions tls = {}) : tls_(std::move(tls)) {}
  StatusOr<HttpResponse> RoundTrip(const Endpoint& endpoint, const HttpRequest& request,
                                   std::chrono::milliseconds timeout) override;

 private:
  TlsOptions tls_;
};

}  // namespace rdmastack::s3
