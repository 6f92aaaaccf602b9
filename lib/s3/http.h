#pragma once
// A minimal HTTP/1.1 client seam: one request, one response, one deadline. The S3 client and the
// readiness probe talk to this interface; unit tests substitute a fake.
//
// Transport failures come back as Status codes the probe can classify:
//   kUnavailable       — connection refused / host unreachable / name not resolvable
//   kDeadlineExceeded  — the deadline passed (connect, write or read)
//   kDataLoss          — the peer answered something that is not HTTP, or TLS failed (untrusted
//                        certificate, wrong host name, plain HTTP on a TLS port)
//   kResourceExhausted — the answer's body is larger than the request's BodyLimit allows
//
// Every peer is a gateway, and a gateway runs a tenant's image: whatever it answers must not
// become the caller's memory. So every request carries a BodyLimit, and the body is read straight
// into HttpResponse::body up to it (headers are bounded at 8 KiB by the parser).

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

// What a call answered by a small document (an S3 error, a health check) may read when it says
// nothing else.
inline constexpr uint64_t kDefaultMaxResponseBytes = uint64_t{1} << 20;

// How much of an answer's body a request reads.
struct BodyLimit {
  enum class Over {
    kFail,        // the whole answer is needed: a longer one is a kResourceExhausted error
    kKeepPrefix,  // only its start is: the first max_bytes are kept, the rest is left unread
  };
  uint64_t max_bytes = kDefaultMaxResponseBytes;
  Over over = Over::kFail;
};

struct HttpRequest {
  std::string method;
  std::string target;  // already-encoded path plus optional "?query"
  KeyValues headers;
  std::string body;
  BodyLimit response_limit;
};

struct HttpResponse {
  int status = 0;
  KeyValues headers;
  std::string body;
  // The answer was longer than `body` (BodyLimit::Over::kKeepPrefix).
  bool body_truncated = false;
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
