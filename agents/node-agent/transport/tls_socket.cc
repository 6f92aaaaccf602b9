#include "agents/node-agent/transport/tls_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

namespace rdmastack::agent::transport {
namespace {

using Clock = std::chrono::steady_clock;

// TLS 1.2: forward-secret key exchange and AEAD ciphers only. TLS 1.3 suites are all AEAD with
// (EC)DHE; these are its three that every peer implements.
constexpr char kTls12Ciphers[] =
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
constexpr char kTls13Suites[] =
    "TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256";

struct CtxFree {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
struct SslFree {
  void operator()(SSL* s) const { SSL_free(s); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using CtxPtr = std::unique_ptr<SSL_CTX, CtxFree>;
using SslPtr = std::unique_ptr<SSL, SslFree>;

// OpenSSL's error queue as one line ("reason; reason"), emptied. `fallback` when it is empty.
std::string DrainErrors(std::string fallback) {
  std::string text;
  while (const unsigned long e = ERR_get_error()) {
    const char* reason = ERR_reason_error_string(e);
    char code[32];
    std::snprintf(code, sizeof(code), "error:%08lX", e);
    if (!text.empty()) text += "; ";
    text += reason != nullptr ? reason : code;
  }
  return text.empty() ? fallback : text;
}

bool InitOpenSsl() {
  static const bool ok = OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, nullptr) == 1;
  return ok;
}

// Reads every certificate of a PEM bundle into `store` (when given); the one rule for both the
// start-up check and the handshake.
Status ParseCaBundle(std::string_view pem, X509_STORE* store) {
  if (!InitOpenSsl()) return InternalError("OpenSSL initialisation failed");
  ERR_clear_error();
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (bio == nullptr) return InternalError(DrainErrors("out of memory"));
  int count = 0;
  while (true) {
    std::unique_ptr<X509, X509Free> cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (cert == nullptr) break;
    ++count;
    if (store != nullptr && X509_STORE_add_cert(store, cert.get()) != 1) {
      return InternalError(DrainErrors("adding a trust anchor failed"));
    }
  }
  // The loop ends at the end of the text (PEM "no start line") or at a block that does not parse.
  const unsigned long last = ERR_peek_last_error();
  const bool clean_end =
      ERR_GET_LIB(last) == ERR_LIB_PEM && ERR_GET_REASON(last) == PEM_R_NO_START_LINE;
  if (count == 0) {
    const std::string why = clean_end ? "" : ": " + DrainErrors("");
    ERR_clear_error();
    return InvalidArgumentError("no PEM certificate could be parsed" + why);
  }
  if (!clean_end) {
    return InvalidArgumentError("certificate " + std::to_string(count + 1) +
                                " of the bundle does not parse: " + DrainErrors("unknown error"));
  }
  ERR_clear_error();
  return OkStatus();
}

// The names a certificate carries, for the error that says it is not the one asked for.
std::string CertificateNames(X509* leaf) {
  std::string out;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(leaf, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; names != nullptr && i < sk_GENERAL_NAME_num(names) && i < 8; ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    std::string one;
    if (n->type == GEN_DNS) {
      const ASN1_STRING* s = n->d.dNSName;
      one = "DNS:" + std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                                 static_cast<size_t>(ASN1_STRING_length(s)));
    } else if (n->type == GEN_IPADD) {
      const ASN1_STRING* s = n->d.iPAddress;
      char text[INET6_ADDRSTRLEN] = "?";
      const int family = ASN1_STRING_length(s) == 4 ? AF_INET : AF_INET6;
      if (ASN1_STRING_length(s) == 4 || ASN1_STRING_length(s) == 16)
        inet_ntop(family, ASN1_STRING_get0_data(s), text, sizeof(text));
      one = std::string("IP:") + text;
    }
    if (!one.empty()) out += (out.empty() ? "" : ", ") + one;
  }
  GENERAL_NAMES_free(names);
  char cn[256];
  if (X509_NAME_get_text_by_NID(X509_get_subject_name(leaf), NID_commonName, cn, sizeof(cn)) > 0) {
    out += (out.empty() ? "" : ", ") + std::string("CN=") + cn;
  }
  return out.empty() ? "none" : out;
}

// A socket BIO that sends with MSG_NOSIGNAL: a hub that went away must end the session with an
// error, not kill the agent with SIGPIPE (OpenSSL's own socket BIO uses write()).
int BioWrite(BIO* bio, const char* buf, int len) {
  const int fd = static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(bio)));
  BIO_clear_retry_flags(bio);
  const ssize_t n = ::send(fd, buf, static_cast<size_t>(len), MSG_NOSIGNAL);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    BIO_set_retry_write(bio);
  return static_cast<int>(n);
}

int BioRead(BIO* bio, char* buf, int len) {
  const int fd = static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(bio)));
  BIO_clear_retry_flags(bio);
  const ssize_t n = ::recv(fd, buf, static_cast<size_t>(len), 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) BIO_set_retry_read(bio);
  return static_cast<int>(n);
}

long BioCtrl(BIO*, int cmd, long, void*) {
  return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

const BIO_METHOD* NoSignalSocketMethod() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR,
                                 "rdmastack-agent socket");
    if (m == nullptr) return m;
    BIO_meth_set_write(m, &BioWrite);
    BIO_meth_set_read(m, &BioRead);
    BIO_meth_set_ctrl(m, &BioCtrl);
    return m;
  }();
  return method;
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

// The client context every connection uses: TLS 1.2 or 1.3, the suites above, security level 2
// (no RSA keys under 2048 bits, no SHA-1 signatures), the peer verified against `store` only (no
// system trust store), no session cache, no renegotiation, record buffers released when idle.
StatusOr<CtxPtr> NewClientContext(const std::string_view ca_pem, bool with_trust) {
  if (!InitOpenSsl()) return InternalError("OpenSSL initialisation failed");
  ERR_clear_error();
  CtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (ctx == nullptr) return InternalError("TLS context: " + DrainErrors("out of memory"));
  if (SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION) != 1 ||
      SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION) != 1 ||
      SSL_CTX_set_cipher_list(ctx.get(), kTls12Ciphers) != 1 ||
      SSL_CTX_set_ciphersuites(ctx.get(), kTls13Suites) != 1) {
    return InternalError("TLS settings: " + DrainErrors("refused"));
  }
  SSL_CTX_set_security_level(ctx.get(), 2);
  SSL_CTX_set_options(ctx.get(),
                      SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_TICKET);
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                                  SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  if (with_trust) {
    RDMASTACK_RETURN_IF_ERROR(
        ParseCaBundle(ca_pem, SSL_CTX_get_cert_store(ctx.get())).WithContext("CA bundle"));
  }
  return ctx;
}

// True when `name` is an IPv4 or IPv6 literal.
bool IsIpLiteral(const std::string& name) {
  unsigned char buf[16];
  return inet_pton(AF_INET, name.c_str(), buf) == 1 || inet_pton(AF_INET6, name.c_str(), buf) == 1;
}

std::string AlpnWire(const std::vector<std::string>& protocols) {
  std::string wire;
  for (const std::string& p : protocols) {
    wire += static_cast<char>(p.size());
    wire += p;
  }
  return wire;
}

}  // namespace

struct TlsSocket::Impl {
  int fd = -1;
  bool wants_write = false;
  bool failed = false;  // after a fatal error OpenSSL must not be asked to shut down
  CtxPtr ctx;
  SslPtr ssl;

  ~Impl() {
    if (ssl != nullptr && !failed && SSL_is_init_finished(ssl.get())) {
      SSL_shutdown(ssl.get());  // best effort: close_notify if the socket takes it now
      ERR_clear_error();
    }
    ssl.reset();
    ctx.reset();
    if (fd >= 0) ::close(fd);
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

  // Why the last SSL_* call that returned `ret` failed, for a connection that is over.
  std::string Failure(int ret, const char* what) {
    failed = true;
    const int error = SSL_get_error(ssl.get(), ret);
    if (error == SSL_ERROR_ZERO_RETURN) return "hub closed the connection";
    if (error == SSL_ERROR_SYSCALL) {
      const int saved = errno;
      std::string text = DrainErrors("");
      if (!text.empty()) return std::string(what) + ": " + text;
      if (saved != 0) return std::string(what) + ": " + std::strerror(saved);
      return "hub closed the connection";
    }
    const unsigned long first = ERR_peek_error();
    if (ERR_GET_LIB(first) == ERR_LIB_SSL &&
        ERR_GET_REASON(first) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
      ERR_clear_error();
      return "hub closed the connection (without TLS close_notify)";
    }
    return std::string(what) + ": " + DrainErrors("error " + std::to_string(error));
  }
};

Status InitTls() {
  return InitOpenSsl() ? OkStatus() : InternalError("OpenSSL initialisation failed");
}

Status ValidateCaBundle(std::string_view pem) {
  return ParseCaBundle(pem, nullptr);
}

StatusOr<OfferedTls> AgentTlsOffer() {
  RDMASTACK_ASSIGN_OR_RETURN(CtxPtr ctx, NewClientContext("", false));
  SslPtr ssl(SSL_new(ctx.get()));
  if (ssl == nullptr) return InternalError("TLS session: " + DrainErrors("out of memory"));
  OfferedTls offer;
  auto version_name = [](long v) {
    return v == TLS1_2_VERSION ? "TLSv1.2" : v == TLS1_3_VERSION ? "TLSv1.3" : "other";
  };
  offer.min_version = version_name(SSL_CTX_get_min_proto_version(ctx.get()));
  offer.max_version = version_name(SSL_CTX_get_max_proto_version(ctx.get()));
  // What a ClientHello from this context carries, after the version and security-level filters.
  STACK_OF(SSL_CIPHER)* offered = SSL_get1_supported_ciphers(ssl.get());
  for (int i = 0; offered != nullptr && i < sk_SSL_CIPHER_num(offered); ++i) {
    offer.cipher_suites.emplace_back(SSL_CIPHER_standard_name(sk_SSL_CIPHER_value(offered, i)));
  }
  sk_SSL_CIPHER_free(offered);
  return offer;
}

TlsSocket::TlsSocket(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TlsSocket::~TlsSocket() = default;
int TlsSocket::fd() const {
  return impl_->fd;
}
std::string TlsSocket::Version() const {
  return SSL_get_version(impl_->ssl.get());
}
bool TlsSocket::WantsWrite() const {
  return impl_->wants_write;
}
bool TlsSocket::HasBufferedInput() const {
  // Decrypted bytes only: a partly received record is not readable yet, and poll sees the rest.
  return SSL_pending(impl_->ssl.get()) > 0;
}

StatusOr<std::unique_ptr<TlsSocket>> TlsSocket::Connect(const TlsClientOptions& options) {
  const std::string endpoint = options.host + ":" + options.port;
  const auto deadline = Clock::now() + options.timeout;
  const std::string& name = options.server_name.empty() ? options.host : options.server_name;
  if (name.empty()) return InvalidArgumentError("TLS server name is empty");
  auto impl = std::make_unique<Impl>();
  // The trust anchors first: a bad bundle is a configuration error, not a network one.
  RDMASTACK_ASSIGN_OR_RETURN(impl->ctx, NewClientContext(options.ca_pem, true));

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

  ERR_clear_error();
  impl->ssl.reset(SSL_new(impl->ctx.get()));
  const BIO_METHOD* method = NoSignalSocketMethod();
  BIO* bio = method != nullptr ? BIO_new(method) : nullptr;
  if (impl->ssl == nullptr || bio == nullptr) {
    BIO_free(bio);
    return InternalError("TLS setup: " + DrainErrors("out of memory"));
  }
  BIO_set_data(bio, reinterpret_cast<void*>(static_cast<intptr_t>(impl->fd)));
  BIO_set_init(bio, 1);
  SSL_set_bio(impl->ssl.get(), bio, bio);  // the SSL owns the BIO

  // The name is always checked: an IP literal against the iPAddress SANs (and never sent as
  // SNI), a DNS name against the DNS SANs, or the CN when there are none; no partial wildcards.
  X509_VERIFY_PARAM* param = SSL_get0_param(impl->ssl.get());
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  const bool ip = IsIpLiteral(name);
  const bool named = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str()) == 1
                        : SSL_set1_host(impl->ssl.get(), name.c_str()) == 1 &&
                              SSL_set_tlsext_host_name(impl->ssl.get(), name.c_str()) == 1;
  if (!named) {
    return InvalidArgumentError("TLS server name '" + name + "': " + DrainErrors("not usable"));
  }
  const std::string alpn = AlpnWire(options.alpn);
  if (!alpn.empty() &&
      SSL_set_alpn_protos(impl->ssl.get(), reinterpret_cast<const unsigned char*>(alpn.data()),
                          static_cast<unsigned>(alpn.size())) != 0) {
    return InternalError("TLS ALPN: " + DrainErrors("refused"));
  }

  while (true) {
    ERR_clear_error();
    errno = 0;
    const int ret = SSL_connect(impl->ssl.get());
    if (ret == 1) break;
    const int error = SSL_get_error(impl->ssl.get(), ret);
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
      std::string why;
      if (!impl->Wait(error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline, options.abort,
                      &why)) {
        return UnavailableError("TLS handshake with " + endpoint + ": " + why);
      }
      continue;
    }
    const long verify = SSL_get_verify_result(impl->ssl.get());
    if (verify != X509_V_OK) {
      std::string text = X509_verify_cert_error_string(verify);
      STACK_OF(X509)* chain = SSL_get_peer_cert_chain(impl->ssl.get());
      if ((verify == X509_V_ERR_HOSTNAME_MISMATCH || verify == X509_V_ERR_IP_ADDRESS_MISMATCH) &&
          chain != nullptr && sk_X509_num(chain) > 0) {
        text += " (the certificate names " + CertificateNames(sk_X509_value(chain, 0)) + ")";
      }
      ERR_clear_error();
      return UnavailableError("TLS handshake with " + endpoint + ": certificate of '" + name +
                              "' rejected: " + text);
    }
    return UnavailableError("TLS handshake with " + endpoint + ": " +
                            impl->Failure(ret, "handshake"));
  }
  if (!options.alpn.empty()) {
    const unsigned char* got = nullptr;
    unsigned got_len = 0;
    SSL_get0_alpn_selected(impl->ssl.get(), &got, &got_len);
    if (got == nullptr ||
        std::string_view(reinterpret_cast<const char*>(got), got_len) != options.alpn.front()) {
      return UnavailableError(endpoint + " did not negotiate ALPN '" + options.alpn.front() +
                              "' (is it the AgentHub gRPC port?)");
    }
  }
  return std::unique_ptr<TlsSocket>(new TlsSocket(std::move(impl)));
}

StatusOr<size_t> TlsSocket::Read(uint8_t* buf, size_t len) {
  impl_->wants_write = false;
  ERR_clear_error();
  errno = 0;
  const int ret = SSL_read(impl_->ssl.get(), buf, static_cast<int>(std::min<size_t>(len, INT_MAX)));
  if (ret > 0) return static_cast<size_t>(ret);
  const int error = SSL_get_error(impl_->ssl.get(), ret);
  if (error == SSL_ERROR_WANT_READ) return size_t{0};
  if (error == SSL_ERROR_WANT_WRITE) {
    impl_->wants_write = true;
    return size_t{0};
  }
  return UnavailableError(impl_->Failure(ret, "TLS read"));
}

StatusOr<size_t> TlsSocket::Write(const uint8_t* buf, size_t len) {
  impl_->wants_write = false;
  if (len == 0) return size_t{0};
  ERR_clear_error();
  errno = 0;
  // A retry after WANT_WRITE passes the same bytes first (SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
  // lets them move, SSL_MODE_ENABLE_PARTIAL_WRITE lets more follow).
  const int ret =
      SSL_write(impl_->ssl.get(), buf, static_cast<int>(std::min<size_t>(len, INT_MAX)));
  if (ret > 0) return static_cast<size_t>(ret);
  const int error = SSL_get_error(impl_->ssl.get(), ret);
  if (error == SSL_ERROR_WANT_WRITE) {
    impl_->wants_write = true;
    return size_t{0};
  }
  if (error == SSL_ERROR_WANT_READ) return size_t{0};
  return UnavailableError(impl_->Failure(ret, "TLS write"));
}

}  // namespace rdmastack::agent::transport
