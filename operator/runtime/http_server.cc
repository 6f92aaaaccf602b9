#include "operator/runtime/http_server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <charconv>
#include <chrono>
#include <optional>
#include <thread>
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
// Only GETs are served: a request body is never needed.
constexpr uint64_t kMaxRequestBody = 4096;

using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// One keep-alive connection: (TLS handshake,) read a request, answer it, repeat until the peer
// closes. Each connection runs on its own strand, so a session is never touched concurrently.
template <typename Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

 public:
  Session(tcp::socket socket, const HttpServer& server) requires(!kTls)
      : stream_(std::move(socket)), server_(server) {}
  Session(tcp::socket socket, ssl::context& tls, const HttpServer& server) requires(kTls)
      : stream_(std::move(socket), tls), server_(server) {}

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
    parser_->body_limit(kMaxRequestBody);
    beast::get_lowest_layer(stream_).expires_after(kIdleTimeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = this->shared_from_this()](beast::error_code ec, size_t) {
                       if (!ec) self->Respond();
                     });
  }

  void Respond() {
    const auto& request = parser_->get();
    HttpRequest in;
    in.method = std::string(request.method_string());
    in.target = std::string(request.target());
    in.path = in.target.substr(0, in.target.find('?'));
    in.authorization = std::string(request[http::field::authorization]);
    const HttpResponse r = server_.Dispatch(in);
    response_ = {};
    response_.version(request.version());
    response_.result(static_cast<http::status>(r.status));
    response_.set(http::field::content_type, r.content_type);
    response_.keep_alive(request.keep_alive());
    response_.body() = r.body;
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

  void Close() {
    if constexpr (kTls) {
      beast::get_lowest_layer(stream_).expires_after(kHandshakeTimeout);
      stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) {});
    } else {
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    }
  }

  Stream stream_;
  const HttpServer& server_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
};

StatusOr<std::unique_ptr<ssl::context>> ServerTlsContext(const TlsServingCredentials& creds) {
  auto tls = std::make_unique<ssl::context>(ssl::context::tls_server);
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
  std::unique_ptr<ssl::context> tls;  // before io: sessions on io refer to it
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::vector<std::thread> threads;
  uint16_t port = 0;

  void Accept(const HttpServer& server) {
    acceptor.async_accept(
        asio::make_strand(io), [this, &server](beast::error_code ec, tcp::socket socket) {
          if (ec == asio::error::operation_aborted) return;  // closed by Stop
          if (!ec) {
            if (tls) {
              std::make_shared<Session<TlsStream>>(std::move(socket), *tls, server)->Start();
            } else {
              std::make_shared<Session<beast::tcp_stream>>(std::move(socket), server)->Start();
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
  handlers_[path] = std::move(handler);
}

HttpResponse HttpServer::Dispatch(const HttpRequest& request) const {
  auto it = handlers_.find(request.path);
  if (it == handlers_.end()) return {404, "text/plain; charset=utf-8", "not found\n"};
  if (request.method != "GET" && request.method != "HEAD") {
    return {405, "text/plain; charset=utf-8", "method not allowed\n"};
  }
  return it->second(request);
}

Status HttpServer::Start(const std::string& bind_address, HttpServerOptions options) {
  if (impl_) return FailedPreconditionError("HTTP server already started");
  RDMASTACK_ASSIGN_OR_RETURN(BindAddress bind, ParseBindAddress(bind_address));
  auto impl = std::make_unique<Impl>();
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
