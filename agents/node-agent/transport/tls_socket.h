#pragma once
// A TLS client connection over TCP, built on OpenSSL 3 from Debian's libssl3, linked as a shared
// library so that a security update of the package reaches the agent without rebuilding it
// (docs/agent.md, "Transport"). The agent no longer uses mbedTLS: its 2.28 branch lost upstream
// maintenance in March 2025.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack::agent::transport {

struct TlsClientOptions {
  std::string host;
  std::string port;
  // The name the certificate must carry: a DNS name (SAN, or CN when the certificate has no DNS
  // SAN) or, for an IP literal, an iPAddress SAN. Empty means `host`.
  std::string server_name;
  std::string ca_pem;                         // trust anchors; nothing else is trusted
  std::vector<std::string> alpn;              // the server must select the first one
  std::chrono::milliseconds timeout{10'000};  // TCP connect + handshake
  const std::atomic<bool>* abort = nullptr;   // checked while connecting; set it to give up early
};

// Initialises OpenSSL without reading a configuration file or OPENSSL_CONF, so that what the agent
// trusts and offers is decided by this code alone, never by a file in the image or a variable in
// the pod. Call before anything else uses OpenSSL (the report's content hash does); idempotent.
Status InitTls();

// Parses a PEM bundle the way Connect will: at least one certificate, and every PEM block in it
// must parse.
Status ValidateCaBundle(std::string_view pem);

// What the agent offers in its ClientHello: the lowest protocol version ("TLSv1.2") and the IANA
// names of the cipher suites, in order of preference. TLS 1.3's AEAD suites, then TLS 1.2 with
// ECDHE key exchange and an AEAD cipher (AES-GCM, ChaCha20-Poly1305) only.
struct OfferedTls {
  std::string min_version;
  std::string max_version;
  std::vector<std::string> cipher_suites;
};
StatusOr<OfferedTls> AgentTlsOffer();

class TlsSocket {
 public:
  // Resolves, connects (non-blocking, bounded by options.timeout), handshakes and verifies the
  // hub's certificate chain and name. Errors say which step failed and why.
  static StatusOr<std::unique_ptr<TlsSocket>> Connect(const TlsClientOptions& options);
  ~TlsSocket();
  TlsSocket(const TlsSocket&) = delete;
  TlsSocket& operator=(const TlsSocket&) = delete;

  int fd() const;
  // The negotiated protocol, e.g. "TLSv1.3".
  std::string Version() const;
  // Non-blocking I/O: the number of bytes moved, 0 when the socket would block, or kUnavailable
  // when the peer closed or the connection broke. After Write returns 0, call it again with the
  // same bytes at the front of `buf` (more may follow).
  StatusOr<size_t> Read(uint8_t* buf, size_t len);
  StatusOr<size_t> Write(const uint8_t* buf, size_t len);
  // Decrypted bytes that a Read returns without touching the socket (poll cannot see them).
  bool HasBufferedInput() const;
  // True when the last Read/Write stopped because TLS needs the socket writable.
  bool WantsWrite() const;

 private:
  struct Impl;
  explicit TlsSocket(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdmastack::agent::transport
