#pragma once
// A TLS client connection over TCP, built on mbedTLS. The agent uses mbedTLS rather than OpenSSL
// because of resident memory: measured on the same machine, an idle OpenSSL 3 client holding one
// TLS connection keeps 6.6 MiB resident and an mbedTLS one 3.0 MiB, and the whole agent has an
// 8 MiB budget (docs/bench-agent.md). The operator side keeps OpenSSL.

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
  // The name the certificate must carry: a DNS name (SAN or CN) or, for an IP literal, an
  // iPAddress SAN. Empty means `host`.
  std::string server_name;
  std::string ca_pem;                         // trust anchors; nothing else is trusted
  std::vector<std::string> alpn;              // the server must select the first one
  std::chrono::milliseconds timeout{10'000};  // TCP connect + handshake
  const std::atomic<bool>* abort = nullptr;   // checked while connecting; set it to give up early
};

// Parses a PEM bundle the way Connect will; a bundle without any certificate is an error.
Status ValidateCaBundle(std::string_view pem);

// The cipher suites the agent offers (mbedTLS ids, 0-terminated): TLS 1.2 with ECDHE key exchange
// and an AEAD cipher (AES-GCM, ChaCha20-Poly1305) only. mbedTLS 2.28 has no TLS 1.3.
const int* AgentCiphersuites();

class TlsSocket {
 public:
  // Resolves, connects (non-blocking, bounded by options.timeout), handshakes and verifies the
  // hub's certificate chain and name. Errors say which step failed and why.
  static StatusOr<std::unique_ptr<TlsSocket>> Connect(const TlsClientOptions& options);
  ~TlsSocket();
  TlsSocket(const TlsSocket&) = delete;
  TlsSocket& operator=(const TlsSocket&) = delete;

  int fd() const;
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
