#include "operator/k8s/transport.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <limits>
#include <mutex>
#include <vector>

#include "operator/k8s/call_context.h"

namespace rdmastack::k8s {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

struct Endpoint {
  std::string host;         // without brackets
  std::string port;         // "443" by default
  std::string host_header;  // as in the URL ("[::1]:6443")
  std::string base_path;    // path prefix of the server URL, usually ""
};

StatusOr<Endpoint> ParseServer(const std::string& server) {
  constexpr std::string_view kScheme = "https://";
  if (server.rfind(kScheme, 0) != 0) {
    return InvalidArgumentError("server '" + server + "' is not an https:// URL");
  }
  std::string rest = server.substr(kScheme.size());
  Endpoint ep;
  size_t slash = rest.find('/');
  if (slash != std::string::npos) {
    ep.base_path = rest.substr(slash);
    while (!ep.base_path.empty() && ep.base_path.back() == '/') ep.base_path.pop_back();
    rest.resize(slash);
  }
  ep.host_header = rest;
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    if (close == std::string::npos)
      return InvalidArgumentError("server '" + server + "': unclosed '['");
    ep.host = rest.substr(1, close - 1);
    std::string after = rest.substr(close + 1);
    if (!after.empty() && after.front() != ':') {
      return InvalidArgumentError("server '" + server + "': junk after the IPv6 address");
    }
    ep.port = after.empty() ? "443" : after.substr(1);
  } else {
    size_t colon = rest.rfind(':');
    ep.host = colon == std::string::npos ? rest : rest.substr(0, colon);
    ep.port = colon == std::string::npos ? "443" : rest.substr(colon + 1);
  }
  if (ep.host.empty()) return InvalidArgumentError("server '" + server + "' has no host");
  if (ep.port.empty() || ep.port.find_first_not_of("0123456789") != std::string::npos) {
    return InvalidArgumentError("server '" + server + "' has an invalid port");
  }
  return ep;
}

bool IsIpAddress(const std::string& host) {
  beast::error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out;
}

// Drives one async operation on a connection-private io_context to completion (or timeout). A
// cancellation of the calling thread's CallContext stops the loop at once; the caller then sees
// CheckCallContext fail and discards the connection.
[[nodiscard]] Status RunIo(asio::io_context& ioc) {
  const auto& cancellation = CurrentCallContext().cancellation;
  Cancellation::Registration registration;
  if (cancellation) registration = cancellation->OnCancel([&ioc] { ioc.stop(); });
  ioc.restart();
  ioc.run();
  if (cancellation && cancellation->cancelled()) return CancelledError("request cancelled");
  return OkStatus();
}

struct Connection {
  explicit Connection(ssl::context& ctx) : stream(ioc, ctx) {}
  asio::io_context ioc;
  beast::ssl_stream<beast::tcp_stream> stream;
  beast::flat_buffer buffer;
  bool reused = false;
};

class HttpsStream final : public ResponseStream {
 public:
  HttpsStream(std::unique_ptr<Connection> conn,
              std::unique_ptr<http::response_parser<http::buffer_body>> parser,
              std::chrono::milliseconds inactivity)
      : conn_(std::move(conn)), parser_(std::move(parser)), inactivity_(inactivity) {}

  StatusOr<std::optional<std::string>> Read() override {
    while (true) {
      if (cancelled_.load()) return CancelledError("watch cancelled");
      if (parser_->is_done()) return std::optional<std::string>();
      auto& body = parser_->get().body();
      body.data = chunk_.data();
      body.size = chunk_.size();
      beast::error_code ec;
      beast::get_lowest_layer(conn_->stream).expires_after(inactivity_);
      http::async_read_some(conn_->stream, conn_->buffer, *parser_,
                            [&ec](beast::error_code e, size_t) { ec = e; });
      // A watch is read outside any CallScope; Cancel() below is how it is stopped.
      (void)RunIo(conn_->ioc);
      const size_t got = chunk_.size() - body.size;
      if (ec == http::error::need_buffer) ec = {};
      if (cancelled_.load()) return CancelledError("watch cancelled");
      if (ec == beast::error::timeout) {
        return DeadlineExceededError("no data on the watch stream for " +
                                     std::to_string(inactivity_.count()) + " ms");
      }
      if (ec) {
        if (parser_->is_done()) return std::optional<std::string>();
        return UnavailableError("watch stream broke: " + ec.message());
      }
      if (got > 0) return std::optional<std::string>(std::string(chunk_.data(), got));
    }
  }

  void Cancel() override {
    cancelled_.store(true);
    Connection* conn = conn_.get();
    asio::post(conn->ioc, [conn] { beast::get_lowest_layer(conn->stream).cancel(); });
  }

 private:
  std::unique_ptr<Connection> conn_;
  std::unique_ptr<http::response_parser<http::buffer_body>> parser_;
  std::chrono::milliseconds inactivity_;
  std::array<char, 64 * 1024> chunk_{};
  std::atomic<bool> cancelled_{false};
};

class HttpsTransport final : public Transport {
 public:
  HttpsTransport(Config config, Endpoint endpoint, TransportOptions options)
      : config_(std::move(config)),
        endpoint_(std::move(endpoint)),
        options_(options),
        ssl_ctx_(ssl::context::tls_client) {}

  Status Init() {
    SSL_CTX* ctx = ssl_ctx_.native_handle();
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
      return InternalError("cannot require TLS 1.2: " + OpenSslErrors());
    }
    beast::error_code ec;
    if (config_.tls.insecure_skip_verify) {
      spdlog::warn("TLS verification of {} is DISABLED (explicit insecure-skip-tls-verify)",
                   config_.server);
      ssl_ctx_.set_verify_mode(ssl::verify_none, ec);
    } else if (!config_.tls.ca_pem.empty()) {
      ssl_ctx_.add_certificate_authority(asio::buffer(config_.tls.ca_pem), ec);
      if (ec)
        return InvalidArgumentError("the CA bundle is not a valid PEM certificate: " +
                                    ec.message());
    } else {
      ssl_ctx_.set_default_verify_paths(ec);
      if (ec) return InternalError("cannot load the system CA store: " + ec.message());
    }
    if (!config_.tls.client_cert_pem.empty()) {
      ssl_ctx_.use_certificate_chain(asio::buffer(config_.tls.client_cert_pem), ec);
      if (ec) return InvalidArgumentError("client certificate is not valid PEM: " + ec.message());
      ssl_ctx_.use_private_key(asio::buffer(config_.tls.client_key_pem), ssl::context::pem, ec);
      if (ec) {
        return InvalidArgumentError(
            "client key is not valid PEM or does not match the client certificate: " +
            ec.message());
      }
      if (SSL_CTX_check_private_key(ctx) != 1) {
        return InvalidArgumentError("client key does not match the client certificate");
      }
    }
    server_name_ = config_.tls.server_name.empty() ? endpoint_.host : config_.tls.server_name;
    return OkStatus();
  }

  StatusOr<HttpResponse> Send(const HttpRequest& request) override {
    for (int attempt = 0;; ++attempt) {
      RDMASTACK_RETURN_IF_ERROR(CheckCallContext(request.method + " " + request.target));
      RDMASTACK_ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn, Acquire());
      const bool reused = conn->reused;
      bool got_response_bytes = false;
      auto response = Exchange(*conn, request, got_response_bytes);
      // A pooled connection the server has since closed fails before any response byte; that is
      // retried once on a fresh connection, but only for a request that is safe to repeat: the
      // server may have read the first copy before it closed.
      if (!response.ok() && reused && !got_response_bytes && attempt == 0 &&
          IsSafeToResend(request) && CheckCallContext("").ok()) {
        continue;
      }
      if (!response.ok()) return response.status();
      if (response->second) Release(std::move(conn));
      return std::move(response->first);
    }
  }

  StatusOr<StreamResult> OpenStream(const HttpRequest& request,
                                    std::chrono::milliseconds inactivity_timeout) override {
    // Watches get their own connection; it is never returned to the pool.
    RDMASTACK_RETURN_IF_ERROR(CheckCallContext(request.method + " " + request.target));
    RDMASTACK_ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn, Connect());
    RDMASTACK_RETURN_IF_ERROR(Write(*conn, request));
    auto parser = std::make_unique<http::response_parser<http::buffer_body>>();
    // A watch is one long body; its size is bounded per event by the reader, not here.
    parser->body_limit(std::numeric_limits<std::uint64_t>::max());
    beast::error_code ec;
    beast::get_lowest_layer(conn->stream).expires_after(BoundByDeadline(config_.request_timeout));
    http::async_read_header(conn->stream, conn->buffer, *parser,
                            [&ec](beast::error_code e, size_t) { ec = e; });
    RDMASTACK_RETURN_IF_ERROR(RunIo(conn->ioc));
    if (ec) return Describe("reading the response header", ec);
    const int status = static_cast<int>(parser->get().result_int());
    std::string retry_after(parser->get()[http::field::retry_after]);
    auto stream =
        std::make_unique<HttpsStream>(std::move(conn), std::move(parser), inactivity_timeout);
    StreamResult result;
    if (status >= 200 && status < 300) {
      result.stream = std::move(stream);
      return result;
    }
    HttpResponse error{status, {}, retry_after};
    while (error.body.size() < (1 << 20)) {
      auto piece = stream->Read();
      if (!piece.ok() || !piece->has_value()) break;
      error.body += **piece;
    }
    result.error_response = std::move(error);
    return result;
  }

 private:
  Status Describe(std::string_view what, const beast::error_code& ec) const {
    std::string where = " (" + config_.server + ")";
    // An I/O step cut short by the caller's deadline or cancellation reports that, not the symptom.
    if (Status context = CheckCallContext(what); !context.ok()) return context.WithContext(where);
    if (ec == beast::error::timeout) {
      return DeadlineExceededError(std::string(what) + " timed out" + where);
    }
    return UnavailableError(std::string(what) + " failed" + where + ": " + ec.message());
  }

  StatusOr<std::unique_ptr<Connection>> Acquire() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      while (!idle_.empty()) {
        auto conn = std::move(idle_.back());
        idle_.pop_back();
        if (ClosedByPeer(*conn)) continue;
        conn->reused = true;
        return conn;
      }
    }
    return Connect();
  }

  // An idle keep-alive connection has nothing to read; if its socket is readable the server has
  // closed it (FIN, TLS close_notify) or reset it. Dropping it here, instead of finding out by
  // sending on it, matters for requests that are never re-sent (IsSafeToResend): after an API
  // server restart the first POST would otherwise fail.
  static bool ClosedByPeer(Connection& conn) {
    pollfd pfd{beast::get_lowest_layer(conn.stream).socket().native_handle(), POLLIN, 0};
    return poll(&pfd, 1, 0) != 0;
  }

  void Release(std::unique_ptr<Connection> conn) {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.size() < config_.max_idle_connections) idle_.push_back(std::move(conn));
  }

  StatusOr<std::unique_ptr<Connection>> Connect() {
    auto conn = std::make_unique<Connection>(ssl_ctx_);
    beast::error_code ec;
    tcp::resolver resolver(conn->ioc);
    tcp::resolver::results_type endpoints;
    // Name resolution counts against the connect timeout too.
    asio::steady_timer resolve_deadline(conn->ioc);
    bool resolve_timed_out = false;
    resolve_deadline.expires_after(BoundByDeadline(config_.connect_timeout));
    resolve_deadline.async_wait([&](beast::error_code e) {
      if (e) return;  // cancelled: resolution finished first
      resolve_timed_out = true;
      resolver.cancel();
    });
    resolver.async_resolve(endpoint_.host, endpoint_.port,
                           [&](beast::error_code e, tcp::resolver::results_type r) {
                             ec = e;
                             endpoints = std::move(r);
                             resolve_deadline.cancel();
                           });
    RDMASTACK_RETURN_IF_ERROR(RunIo(conn->ioc));
    if (resolve_timed_out) ec = beast::error::timeout;
    if (ec) return Describe("resolving " + endpoint_.host, ec);
    auto& socket = beast::get_lowest_layer(conn->stream);
    socket.expires_after(BoundByDeadline(config_.connect_timeout));
    socket.async_connect(endpoints, [&ec](beast::error_code e, const tcp::endpoint&) { ec = e; });
    RDMASTACK_RETURN_IF_ERROR(RunIo(conn->ioc));
    if (ec) return Describe("connecting", ec);

    SSL* ssl_handle = conn->stream.native_handle();
    const bool is_ip = IsIpAddress(server_name_);
    if (!is_ip) SSL_set_tlsext_host_name(ssl_handle, server_name_.c_str());
    if (!config_.tls.insecure_skip_verify) {
      int ok = is_ip
                   ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_handle), server_name_.c_str())
                   : SSL_set1_host(ssl_handle, server_name_.c_str());
      if (ok != 1) return InternalError("cannot set the expected server name: " + OpenSslErrors());
      conn->stream.set_verify_mode(ssl::verify_peer, ec);
    }
    socket.expires_after(BoundByDeadline(config_.connect_timeout));
    conn->stream.async_handshake(ssl::stream_base::client, [&ec](beast::error_code e) { ec = e; });
    RDMASTACK_RETURN_IF_ERROR(RunIo(conn->ioc));
    if (ec) {
      long verify = SSL_get_verify_result(ssl_handle);
      if (verify != X509_V_OK) {
        return FailedPreconditionError("TLS certificate verification of " + config_.server +
                                       " (as '" + server_name_ +
                                       "') failed: " + X509_verify_cert_error_string(verify) +
                                       "; check the CA bundle and the server name");
      }
      return Describe("TLS handshake", ec);
    }
    return conn;
  }

  Status Write(Connection& conn, const HttpRequest& request) {
    http::verb verb = http::string_to_verb(request.method);
    if (verb == http::verb::unknown)
      return InvalidArgumentError("unknown HTTP method " + request.method);
    http::request<http::string_body> req{verb, endpoint_.base_path + request.target, 11};
    req.set(http::field::host, endpoint_.host_header);
    req.set(http::field::user_agent,
            config_.user_agent.empty() ? DefaultUserAgent() : config_.user_agent);
    req.set(http::field::accept, request.accept);
    if (config_.token) {
      RDMASTACK_ASSIGN_OR_RETURN(std::string token, config_.token->Token());
      req.set(http::field::authorization, "Bearer " + token);
    }
    if (!request.body.empty() || verb == http::verb::post || verb == http::verb::put ||
        verb == http::verb::patch) {
      req.set(http::field::content_type,
              request.content_type.empty() ? "application/json" : request.content_type);
      req.body() = request.body;
    }
    req.keep_alive(true);
    req.prepare_payload();
    beast::error_code ec;
    beast::get_lowest_layer(conn.stream).expires_after(BoundByDeadline(config_.request_timeout));
    http::async_write(conn.stream, req, [&ec](beast::error_code e, size_t) { ec = e; });
    RDMASTACK_RETURN_IF_ERROR(RunIo(conn.ioc));
    if (ec) return Describe("sending " + request.method + " " + request.target, ec);
    return OkStatus();
  }

  // Returns the response and whether the connection may be reused.
  StatusOr<std::pair<HttpResponse, bool>> Exchange(Connection& conn, const HttpRequest& request,
                                                   bool& got_response_bytes) {
    RDMASTACK_RETURN_IF_ERROR(Write(conn, request));
    http::response_parser<http::string_body> parser;
    parser.body_limit(options_.max_body_bytes);
    beast::error_code ec;
    beast::get_lowest_layer(conn.stream).expires_after(BoundByDeadline(config_.request_timeout));
    http::async_read(conn.stream, conn.buffer, parser,
                     [&ec](beast::error_code e, size_t) { ec = e; });
    RDMASTACK_RETURN_IF_ERROR(RunIo(conn.ioc));
    got_response_bytes = parser.got_some();
    if (ec == http::error::body_limit) {
      return ResourceExhaustedError("response to " + request.method + " " + request.target +
                                    " exceeds " + std::to_string(options_.max_body_bytes) +
                                    " bytes");
    }
    if (ec) return Describe("reading the response to " + request.method + " " + request.target, ec);
    auto message = parser.release();
    HttpResponse response;
    response.status = static_cast<int>(message.result_int());
    response.retry_after = std::string(message[http::field::retry_after]);
    const bool keep_alive = message.keep_alive();
    response.body = std::move(message.body());
    return std::make_pair(std::move(response), keep_alive);
  }

  Config config_;
  Endpoint endpoint_;
  TransportOptions options_;
  ssl::context ssl_ctx_;
  std::string server_name_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_;
};

}  // namespace

bool IsSafeToResend(const HttpRequest& request) {
  if (request.method == "POST") return false;
  if (request.method == "PATCH") return request.content_type == "application/apply-patch+yaml";
  return true;
}

StatusOr<std::unique_ptr<Transport>> NewHttpsTransport(const Config& config,
                                                       TransportOptions options) {
  RDMASTACK_ASSIGN_OR_RETURN(Endpoint endpoint, ParseServer(config.server));
  auto transport = std::make_unique<HttpsTransport>(config, std::move(endpoint), options);
  RDMASTACK_RETURN_IF_ERROR(transport->Init());
  return std::unique_ptr<Transport>(std::move(transport));
}

}  // namespace rdmastack::k8s
