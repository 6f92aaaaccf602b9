#include "operator/runtime/http_server.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <charconv>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace rdmastack::runtime {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

StatusOr<BindAddress> ParseBindAddress(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    return InvalidArgumentError("bind address \"" + text + "\" needs a port, e.g. \":8080\"");
  }
  BindAddress out;
  out.host = text.substr(0, colon);
  if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']') {
    out.host = out.host.substr(1, out.host.size() - 2);
  }
  if (out.host.empty()) out.host = "0.0.0.0";
  const std::string port = text.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value > 65535 || port.empty()) {
    return InvalidArgumentError("bind address \"" + text + "\": port must be 0..65535");
  }
  out.port = static_cast<uint16_t>(value);
  return out;
}

namespace {

constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr auto kIdleTimeout = std::chrono::seconds(30);
constexpr auto kWriteTimeout = std::chrono::seconds(30);
// How long a closing connection waits for the peer to close its side (see Session::Close).
constexpr auto kLingerTimeout = std::chrono::seconds(5);

using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// Holds one of the server's connection slots for as long as its session lives.
class ConnectionSlot {
 public:
  explicit ConnectionSlot(std::atomic<size_t>& open) : open_(&open) {}
  ConnectionSlot(ConnectionSlot&& other) noexcept : open_(std::exchange(other.open_, nullptr)) {}
  ConnectionSlot(const ConnectionSlot&) = delete;
  ConnectionSlot& operator=(const ConnectionSlot&) = delete;
  ConnectionSlot& operator=(ConnectionSlot&&) = delete;
  ~ConnectionSlot() {
    if (open_ != nullptr) open_->fetch_sub(1);
  }

 private:
  std::atomic<size_t>* open_;
};

// One keep-alive connection: (TLS handshake,) read a request, answer it, repeat until the peer
// closes. Each connection runs on its own strand, so a session is never touched concurrently.
template <typename Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

 public:
  Session(tcp::socket socket, const HttpServer& server, uint64_t body_limit,
          ConnectionSlot slot) requires(!kTls)
      : slot_(std::move(slot)),
        stream_(std::move(socket)),
        server_(server),
        body_limit_(body_limit) {}
  // Shares ownership of `tls`: UpdateTls may replace the server's context while this connection
  // still uses the old one.
  Session(tcp::socket socket, std::shared_ptr<ssl::context> tls, const HttpServer& server,
          uint64_t body_limit, ConnectionSlot slot) requires(kTls)
      : slot_(std::move(slot)),
        tls_(std::move(tls)),
        stream_(std::move(socket), *tls_),
        server_(server),
        body_limit_(body_limit) {}

  void Start() {
    if constexpr (kTls) {
      beast::get_lowest_layer(stream_).expires_after(kHandshakeTimeout);
      stream_.async_handshake(ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                if (!ec) self->Read();
                              });
    } else {
      Read();
    }
  }

 private:
  void Read() {
    parser_.emplace();
    parser_->body_limit(body_limit_);
    beast::get_lowest_layer(stream_).expires_after(kIdleTimeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = this->shared_from_this()](beast::error_code ec, size_t) {
                       if (!ec) {
                         self->Respond();
                       } else if (ec == http::error::body_limit) {
                         // The header is complete (the limit is checked against it, or against
                         // the chunks after it), so the client can be told why.
                         self->RefuseBody();
                       }
                     });
  }

  void Respond() {
    auto& request = parser_->get();
    HttpRequest in;
    in.method = std::string(request.method_string());
    in.target = std::string(request.target());
    in.path = in.target.substr(0, in.target.find('?'));
    in.authorization = std::string(request[http::field::authorization]);
    in.content_type = std::string(request[http::field::content_type]);
    in.body = std::move(request.body());
    Write(server_.Dispatch(in), request.version(), request.keep_alive());
  }

  // The rest of the body is still on the wire: the connection cannot be reused.
  void RefuseBody() {
    Write({413, "text/plain; charset=utf-8",
           "request body larger than " + std::to_string(body_limit_) + " bytes\n"},
          parser_->get().version(), /*keep_alive=*/false);
  }

  void Write(HttpResponse r, unsigned version, bool keep_alive) {
    response_ = {};
    response_.version(version);
    response_.result(static_cast<http::status>(r.status));
    response_.set(http::field::content_type, r.content_type);
    response_.keep_alive(keep_alive);
    response_.body() = std::move(r.body);
    response_.prepare_payload();
    beast::get_lowest_layer(stream_).expires_after(kWriteTimeout);
    http::async_write(stream_, response_,
                      [self = this->shared_from_this()](beast::error_code ec, size_t) {
                        if (ec) return;
                        if (self->response_.keep_alive()) {
                          self->Read();
                        } else {
                          self->Close();
                        }
                      });
  }

  // Closing a socket that has unread input (a refused body) makes the kernel send a reset, which
  // can destroy the response before the client has read it. So close our side, then read and
  // discard until the client closes its side too, for at most kLingerTimeout.
  void Close() {
    beast::get_lowest_layer(stream_).expires_after(kLingerTimeout);
    if constexpr (kTls) {
      // Waits for the client's close_notify; OpenSSL discards the records before it.
      stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) {});
    } else {
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
      Drain();
    }
  }

  void Drain() {
    stream_.async_read_some(asio::buffer(drain_),
                            [self = this->shared_from_this()](beast::error_code ec, size_t) {
                              if (!ec) self->Drain();
                            });
  }

  ConnectionSlot slot_;
  std::shared_ptr<ssl::context> tls_;  // before stream_, which uses it
  Stream stream_;
  const HttpServer& server_;
  const uint64_t body_limit_;
  std::array<char, 4096> drain_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
};

StatusOr<std::shared_ptr<ssl::context>> ServerTlsContext(const TlsServingCredentials& creds) {
  auto tls = std::make_shared<ssl::context>(ssl::context::tls_server);
  if (SSL_CTX_set_min_proto_version(tls->native_handle(), TLS1_2_VERSION) != 1) {
    return InternalError("cannot require TLS 1.2 on the serving context");
  }
  tls->set_options(ssl::context::default_workarounds | ssl::context::no_compression);
  beast::error_code ec;
  tls->use_certificate_chain(asio::buffer(creds.cert_pem), ec);
  if (ec) return InvalidArgumentError("serving certificate is not valid PEM: " + ec.message());
  tls->use_private_key(asio::buffer(creds.key_pem), ssl::context::pem, ec);
  if (ec || SSL_CTX_check_private_key(tls->native_handle()) != 1) {
    return InvalidArgumentError(
        "serving key is not valid PEM or does not match the serving certificate");
  }
  return tls;
}

}  // namespace

struct HttpServer::Impl {
  // The context new TLS sessions start with; null for plain HTTP. UpdateTls replaces it while
  // accepts read it, hence the mutex. Each session holds its own reference, so a replaced context
  // lives until its last connection ends.
  std::mutex tls_mu;
  std::shared_ptr<ssl::context> tls;
  uint64_t max_request_body = 0;
  size_t max_connections = 0;
  Counter* refused_connections = nullptr;
  std::atomic<size_t> open_connections{0};  // before io: sessions release their slot in ~io
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::vector<std::thread> threads;
  uint16_t port = 0;

  std::shared_ptr<ssl::context> CurrentTls() {
    std::lock_guard<std::mutex> lock(tls_mu);
    return tls;
  }

  void Accept(const HttpServer& server) {
    acceptor.async_accept(
        asio::make_strand(io), [this, &server](beast::error_code ec, tcp::socket socket) {
          if (ec == asio::error::operation_aborted) return;  // closed by Stop
          if (!ec && open_connections.fetch_add(1) >= max_connections) {
            open_connections.fetch_sub(1);
            if (refused_connections != nullptr) refused_connections->Inc();
            beast::error_code ignored;
            socket.close(ignored);
          } else if (!ec) {
            ConnectionSlot slot(open_connections);
            if (auto context = CurrentTls()) {
              std::make_shared<Session<TlsStream>>(std::move(socket), std::move(context), server,
                                                   max_request_body, std::move(slot))
                  ->Start();
            } else {
              std::make_shared<Session<beast::tcp_stream>>(std::move(socket), server,
                                                           max_request_body, std::move(slot))
                  ->Start();
            }
          }
          Accept(server);
        });
  }
};

HttpServer::HttpServer() = default;
HttpServer::~HttpServer() {
  Stop();
}

void HttpServer::Handle(const std::string& path, HttpHandler handler) {
  routes_[path] = Route{{"GET", "HEAD"}, std::move(handler)};
}

void HttpServer::HandlePost(const std::string& path, HttpHandler handler) {
  routes_[path] = Route{{"POST"}, std::move(handler)};
}

HttpResponse HttpServer::Dispatch(const HttpRequest& request) const {
  auto it = routes_.find(request.path);
  if (it == routes_.end()) return {404, "text/plain; charset=utf-8", "not found\n"};
  const std::vector<std::string>& methods = it->second.methods;
  if (std::find(methods.begin(), methods.end(), request.method) == methods.end()) {
    return {405, "text/plain; charset=utf-8", "method not allowed\n"};
  }
  return it->second.handler(request);
}

Status HttpServer::Start(const std::string& bind_address, HttpServerOptions options) {
  if (impl_) return FailedPreconditionError("HTTP server already started");
  RDMASTACK_ASSIGN_OR_RETURN(BindAddress bind, ParseBindAddress(bind_address));
  auto impl = std::make_unique<Impl>();
  impl->max_request_body = options.max_request_body;
  impl->max_connections = std::max<size_t>(1, options.max_connections);
  impl->refused_connections = options.refused_connections;
  if (options.tls) {
    RDMASTACK_ASSIGN_OR_RETURN(impl->tls, ServerTlsContext(*options.tls));
  }
  beast::error_code ec;
  const asio::ip::address address = asio::ip::make_address(bind.host, ec);
  if (ec) return InvalidArgumentError("bind address host \"" + bind.host + "\": " + ec.message());
  const tcp::endpoint endpoint(address, bind.port);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return UnavailableError("cannot listen on " + bind_address + ": " + ec.message());
  impl->port = impl->acceptor.local_endpoint().port();
  impl->Accept(*this);
  Impl* raw = impl.get();
  for (int i = 0; i < std::max(1, options.threads); ++i) {
    impl->threads.emplace_back([raw] { raw->io.run(); });
  }
  impl_ = std::move(impl);
  return OkStatus();
}

Status HttpServer::UpdateTls(const TlsServingCredentials& creds) {
  // Whether the server speaks TLS is fixed at Start: tls is never set to or from null after it.
  if (!impl_ || !impl_->CurrentTls()) {
    return FailedPreconditionError("HTTP server is not serving TLS: nothing to update");
  }
  RDMASTACK_ASSIGN_OR_RETURN(std::shared_ptr<ssl::context> context, ServerTlsContext(creds));
  {
    std::lock_guard<std::mutex> lock(impl_->tls_mu);
    impl_->tls.swap(context);
  }
  // `context` is now the old one: freed here, outside the lock, or by its last session.
  return OkStatus();
}

uint16_t HttpServer::port() const {
  return impl_ ? impl_->port : 0;
}

void HttpServer::Stop() {
  if (!impl_) return;
  asio::post(impl_->io, [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
    impl->io.stop();
  });
  for (auto& t : impl_->threads) t.join();
  impl_.reset();
}

}  // namespace rdmastack::runtime
