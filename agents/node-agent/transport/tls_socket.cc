#include "agents/node-agent/transport/tls_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rdmastack::agent::transport {
namespace {

using Clock = std::chrono::steady_clock;

std::string MbedError(int ret) {
  char text[160];
  mbedtls_strerror(ret, text, sizeof(text));
  char code[16];
  std::snprintf(code, sizeof(code), " (-0x%04x)", static_cast<unsigned>(-ret));
  return std::string(text) + code;
}

// Parses a PEM bundle into `into` (initialized by the caller); the one rule for both the
// start-up check and the handshake: at least one certificate, no parse error.
Status ParseCaBundle(std::string_view pem, mbedtls_x509_crt* into) {
  const std::string text(pem);  // mbedTLS wants the terminating NUL counted in the length
  const int ret = mbedtls_x509_crt_parse(into, reinterpret_cast<const unsigned char*>(text.c_str()),
                                         text.size() + 1);
  if (ret < 0 || into->raw.p == nullptr) {
    return InvalidArgumentError("no PEM certificate could be parsed" +
                                (ret < 0 ? ": " + MbedError(ret) : std::string()));
  }
  return OkStatus();
}

// Raw bytes of an IP literal (4 or 16), or empty when `name` is a DNS name.
std::string IpLiteralBytes(const std::string& name) {
  unsigned char buf[16];
  if (inet_pton(AF_INET, name.c_str(), buf) == 1)
    return std::string(reinterpret_cast<char*>(buf), 4);
  if (inet_pton(AF_INET6, name.c_str(), buf) == 1)
    return std::string(reinterpret_cast<char*>(buf), 16);
  return {};
}

// mbedTLS 2.28 checks DNS names only; for an IP literal the leaf must carry a matching iPAddress
// SAN ([7] in GeneralName), which the parser keeps as a raw entry.
int VerifyIpSan(void* want_ip, mbedtls_x509_crt* crt, int depth, uint32_t* flags) {
  if (depth != 0) return 0;
  const auto& want = *static_cast<const std::string*>(want_ip);
  for (const mbedtls_x509_sequence* san = &crt->subject_alt_names; san != nullptr;
       san = san->next) {
    if (san->buf.p == nullptr) continue;
    if (san->buf.tag == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | 7) && san->buf.len == want.size() &&
        std::memcmp(san->buf.p, want.data(), want.size()) == 0) {
      return 0;
    }
  }
  *flags |= MBEDTLS_X509_BADCERT_CN_MISMATCH;
  return 0;
}

int SendCallback(void* ctx, const unsigned char* buf, size_t len) {
  const int fd = *static_cast<int*>(ctx);
  const ssize_t n = ::send(fd, buf, len, MSG_NOSIGNAL);
  if (n >= 0) return static_cast<int>(n);
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return MBEDTLS_ERR_SSL_WANT_WRITE;
  return MBEDTLS_ERR_NET_SEND_FAILED;
}

int RecvCallback(void* ctx, unsigned char* buf, size_t len) {
  const int fd = *static_cast<int*>(ctx);
  const ssize_t n = ::recv(fd, buf, len, 0);
  if (n >= 0) return static_cast<int>(n);
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return MBEDTLS_ERR_SSL_WANT_READ;
  return MBEDTLS_ERR_NET_RECV_FAILED;
}

// Keepalive and a user timeout make a silently dead hub show up as a failed write or read within
// about a minute, without HTTP/2 PINGs (which a gRPC server may count as abuse).
void TuneSocket(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
  int idle = 30, interval = 10, count = 3;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
  unsigned int user_timeout_ms = 60'000;
  setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof(user_timeout_ms));
}

}  // namespace

struct TlsSocket::Impl {
  int fd = -1;
  bool wants_write = false;
  // After WANT_WRITE mbedTLS has already encrypted the record and must be called again with the
  // same length, or it reports bytes as written that were not.
  size_t retry_len = 0;
  std::string want_ip;  // raw bytes when verifying an IP SAN
  mbedtls_entropy_context entropy;
  mbedtls_ctr_drbg_context drbg;
  mbedtls_x509_crt ca;
  mbedtls_ssl_config conf;
  mbedtls_ssl_context ssl;
  std::vector<const char*> alpn;
  std::vector<std::string> alpn_storage;

  Impl() {
    mbedtls_entropy_init(&entropy);
    mbedtls_ctr_drbg_init(&drbg);
    mbedtls_x509_crt_init(&ca);
    mbedtls_ssl_config_init(&conf);
    mbedtls_ssl_init(&ssl);
  }
  ~Impl() {
    if (fd >= 0) {
      mbedtls_ssl_close_notify(&ssl);  // best effort; the socket is non-blocking
      ::close(fd);
    }
    mbedtls_ssl_free(&ssl);
    mbedtls_ssl_config_free(&conf);
    mbedtls_x509_crt_free(&ca);
    mbedtls_ctr_drbg_free(&drbg);
    mbedtls_entropy_free(&entropy);
  }

  // Waits for `events` on fd until the deadline or an abort; false with *why set otherwise.
  bool Wait(short events, Clock::time_point deadline, const std::atomic<bool>* abort,
            std::string* why) const {
    while (true) {
      if (abort != nullptr && abort->load()) {
        *why = "cancelled";
        return false;
      }
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        *why = "timed out";
        return false;
      }
      pollfd p{fd, events, 0};
      const int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 100)));
      if (r > 0) return true;
      if (r < 0 && errno != EINTR) {
        *why = std::strerror(errno);
        return false;
      }
    }
  }
};

const int* AgentCiphersuites() {
  static const int kSuites[] = {
      MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
      MBEDTLS_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
      MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
      MBEDTLS_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
      MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
      MBEDTLS_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
      0,
  };
  return kSuites;
}

Status ValidateCaBundle(std::string_view pem) {
  mbedtls_x509_crt ca;
  mbedtls_x509_crt_init(&ca);
  Status st = ParseCaBundle(pem, &ca);
  mbedtls_x509_crt_free(&ca);
  return st;
}

TlsSocket::TlsSocket(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TlsSocket::~TlsSocket() = default;
int TlsSocket::fd() const {
  return impl_->fd;
}
bool TlsSocket::WantsWrite() const {
  return impl_->wants_write;
}
bool TlsSocket::HasBufferedInput() const {
  return mbedtls_ssl_get_bytes_avail(&impl_->ssl) > 0;
}

StatusOr<std::unique_ptr<TlsSocket>> TlsSocket::Connect(const TlsClientOptions& options) {
  const std::string endpoint = options.host + ":" + options.port;
  const auto deadline = Clock::now() + options.timeout;
  auto impl = std::make_unique<Impl>();

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = ::getaddrinfo(options.host.c_str(), options.port.c_str(), &hints, &res); rc != 0) {
    return UnavailableError("resolve " + endpoint + ": " + gai_strerror(rc));
  }
  std::string last_error = "no addresses";
  for (addrinfo* ai = res; ai != nullptr && impl->fd < 0; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    impl->fd = fd;
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
      last_error = std::strerror(errno);
    } else if (impl->Wait(POLLOUT, deadline, options.abort, &last_error)) {
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err == 0) break;
      last_error = std::strerror(err);
    }
    ::close(fd);
    impl->fd = -1;
  }
  ::freeaddrinfo(res);
  if (impl->fd < 0) return UnavailableError("connect " + endpoint + ": " + last_error);
  TuneSocket(impl->fd);

  static constexpr char kPersonalization[] = "rdmastack-agent";
  int ret = mbedtls_ctr_drbg_seed(&impl->drbg, mbedtls_entropy_func, &impl->entropy,
                                  reinterpret_cast<const unsigned char*>(kPersonalization),
                                  sizeof(kPersonalization) - 1);
  if (ret != 0) return InternalError("seed TLS random generator: " + MbedError(ret));
  RDMASTACK_RETURN_IF_ERROR(ParseCaBundle(options.ca_pem, &impl->ca).WithContext("CA bundle"));
  ret = mbedtls_ssl_config_defaults(&impl->conf, MBEDTLS_SSL_IS_CLIENT,
                                    MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT);
  if (ret != 0) return InternalError("TLS defaults: " + MbedError(ret));
  // TLS 1.2 exactly (the newest this mbedTLS speaks), forward-secret AEAD suites only.
  mbedtls_ssl_conf_min_version(&impl->conf, MBEDTLS_SSL_MAJOR_VERSION_3,
                               MBEDTLS_SSL_MINOR_VERSION_3);
  mbedtls_ssl_conf_max_version(&impl->conf, MBEDTLS_SSL_MAJOR_VERSION_3,
                               MBEDTLS_SSL_MINOR_VERSION_3);
  mbedtls_ssl_conf_ciphersuites(&impl->conf, AgentCiphersuites());
  mbedtls_ssl_conf_authmode(&impl->conf, MBEDTLS_SSL_VERIFY_REQUIRED);
  mbedtls_ssl_conf_ca_chain(&impl->conf, &impl->ca, nullptr);
  mbedtls_ssl_conf_rng(&impl->conf, mbedtls_ctr_drbg_random, &impl->drbg);
  for (const auto& p : options.alpn) impl->alpn_storage.push_back(p);
  for (const auto& p : impl->alpn_storage) impl->alpn.push_back(p.c_str());
  impl->alpn.push_back(nullptr);
  if (!options.alpn.empty()) mbedtls_ssl_conf_alpn_protocols(&impl->conf, impl->alpn.data());

  const std::string& name = options.server_name.empty() ? options.host : options.server_name;
  impl->want_ip = IpLiteralBytes(name);
  if (!impl->want_ip.empty()) mbedtls_ssl_conf_verify(&impl->conf, &VerifyIpSan, &impl->want_ip);
  if ((ret = mbedtls_ssl_setup(&impl->ssl, &impl->conf)) != 0) {
    return InternalError("TLS setup: " + MbedError(ret));
  }
  // An IP literal is neither sent as SNI nor matched as a DNS name.
  ret = mbedtls_ssl_set_hostname(&impl->ssl, impl->want_ip.empty() ? name.c_str() : nullptr);
  if (ret != 0) return InvalidArgumentError("TLS server name '" + name + "': " + MbedError(ret));
  mbedtls_ssl_set_bio(&impl->ssl, &impl->fd, &SendCallback, &RecvCallback, nullptr);

  while ((ret = mbedtls_ssl_handshake(&impl->ssl)) != 0) {
    std::string why;
    if (ret == MBEDTLS_ERR_SSL_WANT_READ || ret == MBEDTLS_ERR_SSL_WANT_WRITE) {
      const short events = ret == MBEDTLS_ERR_SSL_WANT_READ ? POLLIN : POLLOUT;
      if (!impl->Wait(events, deadline, options.abort, &why)) {
        return UnavailableError("TLS handshake with " + endpoint + ": " + why);
      }
      continue;
    }
    const uint32_t flags = mbedtls_ssl_get_verify_result(&impl->ssl);
    if (ret == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED && flags != 0) {
      char info[512];
      mbedtls_x509_crt_verify_info(info, sizeof(info), "", flags);
      std::string text(info);
      while (!text.empty() && text.back() == '\n') text.pop_back();
      for (auto& c : text) c = c == '\n' ? ';' : c;
      return UnavailableError("TLS handshake with " + endpoint + ": certificate of '" + name +
                              "' rejected: " + text);
    }
    return UnavailableError("TLS handshake with " + endpoint + ": " + MbedError(ret));
  }
  if (!options.alpn.empty()) {
    const char* got = mbedtls_ssl_get_alpn_protocol(&impl->ssl);
    if (got == nullptr || options.alpn.front() != got) {
      return UnavailableError(endpoint + " did not negotiate ALPN '" + options.alpn.front() +
                              "' (is it the AgentHub gRPC port?)");
    }
  }
  return std::unique_ptr<TlsSocket>(new TlsSocket(std::move(impl)));
}

StatusOr<size_t> TlsSocket::Read(uint8_t* buf, size_t len) {
  impl_->wants_write = false;
  const int ret = mbedtls_ssl_read(&impl_->ssl, buf, len);
  if (ret > 0) return static_cast<size_t>(ret);
  if (ret == MBEDTLS_ERR_SSL_WANT_READ) return size_t{0};
  if (ret == MBEDTLS_ERR_SSL_WANT_WRITE) {
    impl_->wants_write = true;
    return size_t{0};
  }
  if (ret == 0 || ret == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY)
    return UnavailableError("hub closed the connection");
  return UnavailableError("TLS read: " + MbedError(ret));
}

StatusOr<size_t> TlsSocket::Write(const uint8_t* buf, size_t len) {
  impl_->wants_write = false;
  if (impl_->retry_len != 0) len = impl_->retry_len;
  const int ret = mbedtls_ssl_write(&impl_->ssl, buf, len);
  if (ret >= 0) {
    impl_->retry_len = 0;
    return static_cast<size_t>(ret);
  }
  if (ret == MBEDTLS_ERR_SSL_WANT_WRITE) {
    impl_->wants_write = true;
    const int max = mbedtls_ssl_get_max_out_record_payload(&impl_->ssl);
    impl_->retry_len = max > 0 ? std::min(len, static_cast<size_t>(max)) : len;
    return size_t{0};
  }
  if (ret == MBEDTLS_ERR_SSL_WANT_READ) return size_t{0};
  return UnavailableError("TLS write: " + MbedError(ret));
}

}  // namespace rdmastack::agent::transport
