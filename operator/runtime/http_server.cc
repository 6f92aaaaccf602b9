#include "operator/runtime/http_server.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "operator/runtime/limited_acceptor.h"

namespace rdmastack::runtime {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

namespace {

// Once a request's head is in: the rest of its body, and the answer's write.
constexpr auto kBodyTimeout = std::chrono::seconds(30);
constexpr auto kWriteTimeout = std::chrono::seconds(30);
// How long a closing connection waits for the peer to close its side (see Session::Close).
constexpr auto kLingerTimeout = std::chrono::seconds(5);
// What a kept-alive connection reads while it waits for its next request.
constexpr size_t kFirstRead = 1024;

using TlsStream = beast::ssl_stream<beast::tcp_stream>;
using Deadline = std::chrono::steady_clock::time_point;

// What every connection of one server reads; lives as long as the server's io_context.
struct SessionShared {
  const HttpServer& server;
  uint64_t body_limit;
  HttpDeadlines deadlines;
  Counter* header_timeouts;  // null: not counted
};

// One keep-alive connection: (TLS handshake,) read a request's head, then its body, answer,
// wait for the next request, repeat until the peer closes or a deadline passes. Each connection
// runs on its own strand, so a session is never touched concurrently. It holds its connection
// slot for as long as it lives.
template <typename Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

 public:
  Session(tcp::socket socket, const SessionShared& shared,
          ConnectionLimiter::Slot slot) requires(!kTls)
      : slot_(std::move(slot)), stream_(std::move(socket)), shared_(shared) {}
  // Shares ownership of `tls`: UpdateTls may replace the server's context while this connection
  // still uses the old one.
  Session(tcp::socket socket, std::shared_ptr<ssl::context> tls, const SessionShared& shared,
          ConnectionLimiter::Slot slot) requires(kTls)
      : slot_(std::move(slot)),
        tls_(std::move(tls)),
        stream_(std::move(socket), *tls_),
        shared_(shared) {}

  void Start() {
    // The first head is due header-deadline after the accept, the TLS handshake included: a
    // peer that never starts its handshake is closed as soon as one that never sends a head.
    const Deadline due = std::chrono::steady_clock::now() + shared_.deadlines.header;
    if constexpr (kTls) {
      beast::get_lowest_layer(stream_).expires_at(due);
      stream_.async_handshake(ssl::stream_base::server,
                              [self = this->shared_from_this(), due](beast::error_code ec) {
                                if (!ec) {
                                  self->ReadHead(due);
                                } else {
                                  self->CountTimeout(ec);
                                }
                              });
    } else {
      ReadHead(due);
    }
  }

 private:
  void ReadHead(Deadline due) {
    parser_.emplace();
    parser_->body_limit(shared_.body_limit);
    beast::get_lowest_layer(stream_).expires_at(due);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = this->shared_from_this()](beast::error_code ec, size_t) {
                              if (!ec) {
                                self->ReadBody();
                              } else if (ec == http::error::body_limit) {
                                self->RefuseBody();
                              } else {
                                self->CountTimeout(ec);
                              }
                            });
  }

  void ReadBody() {
    beast::get_lowest_layer(stream_).expires_after(kBodyTimeout);
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

  // Kept alive: the idle deadline until the next request's first byte, then the header deadline
  // for its head. Bytes already read (a pipelined request) start the head at once.
  void AwaitNextRequest() {
    if (buffer_.size() > 0) {
      ReadHead(std::chrono::steady_clock::now() + shared_.deadlines.header);
      return;
    }
    beast::get_lowest_layer(stream_).expires_after(shared_.deadlines.idle);
    stream_.async_read_some(buffer_.prepare(kFirstRead), [self = this->shared_from_this()](
                                                             beast::error_code ec, size_t n) {
      if (ec) return;  // idle too long, or the peer closed: the connection ends
      self->buffer_.commit(n);
      self->ReadHead(std::chrono::steady_clock::now() + self->shared_.deadlines.header);
    });
  }

  void CountTimeout(beast::error_code ec) {
    if (ec == beast::error::timeout && shared_.header_timeouts != nullptr) {
      shared_.header_timeouts->Inc();
    }
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
    Write(shared_.server.Dispatch(in), request.version(), request.keep_alive());
  }

  // The rest of the body is still on the wire: the connection cannot be reused.
  void RefuseBody() {
    Write({413, "text/plain; charset=utf-8",
           "request body larger than " + std::to_string(shared_.body_limit) + " bytes\n"},
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
                          self->AwaitNextRequest();
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

  ConnectionLimiter::Slot slot_;
  std::shared_ptr<ssl::context> tls_;  // before stream_, which uses it
  Stream stream_;
  const SessionShared& shared_;
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
  Impl(const HttpServer& server, const HttpServerOptions& options)
      : limiter(options.connections),
        shared{server, options.max_request_body, options.deadlines,
               options.metrics == nullptr
                   ? nullptr
                   : &options.metrics
                          ->CounterFamily("rdmastack_listener_header_timeouts_total",
                                          "Connections closed because their request head (TLS "
                                          "handshake included) did not arrive within the header "
                                          "deadline (docs/troubleshooting.md).",
                                          {"listener"})
                          .With({options.listener})},
        acceptor(io, limiter,
                 ListenerOptions{.name = options.listener,
                                 .limits = options.connections,
                                 .metrics = options.metrics}) {}

  // The context new TLS sessions start with; null for plain HTTP. UpdateTls replaces it while
  // accepts read it, hence the mutex. Each session holds its own reference, so a replaced context
  // lives until its last connection ends.
  std::mutex tls_mu;
  std::shared_ptr<ssl::context> tls;
  // Before io: sessions free their slot and read `shared` until ~io destroys the last of them.
  ConnectionLimiter limiter;
  const SessionShared shared;
  asio::io_context io;
  LimitedAcceptor acceptor;
  std::vector<std::thread> threads;

  std::shared_ptr<ssl::context> CurrentTls() {
    std::lock_guard<std::mutex> lock(tls_mu);
    return tls;
  }

  void Serve(tcp::socket socket, ConnectionLimiter::Slot slot) {
    if (auto context = CurrentTls()) {
      std::make_shared<Session<TlsStream>>(std::move(socket), std::move(context), shared,
                                           std::move(slot))
          ->Start();
    } else {
      std::make_shared<Session<beast::tcp_stream>>(std::move(socket), shared, std::move(slot))
          ->Start();
    }
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
  options.connections.max_connections = std::max<size_t>(1, options.connections.max_connections);
  auto impl = std::make_unique<Impl>(*this, options);
  if (options.tls) {
    RDMASTACK_ASSIGN_OR_RETURN(impl->tls, ServerTlsContext(*options.tls));
  }
  RDMASTACK_RETURN_IF_ERROR(impl->acceptor.Listen(bind_address));
  Impl* raw = impl.get();
  impl->acceptor.Start([raw](tcp::socket socket, ConnectionLimiter::Slot slot) {
    raw->Serve(std::move(socket), std::move(slot));
  });
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
  return impl_ ? impl_->acceptor.port() : 0;
}

void HttpServer::Stop() {
  if (!impl_) return;
  asio::post(impl_->io, [impl = impl_.get()] {
    impl->acceptor.Close();
    impl->io.stop();
  });
  for (auto& t : impl_->threads) t.join();
  impl_.reset();
}

}  // namespace rdmastack::runtime
