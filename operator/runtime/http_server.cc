#include "operator/runtime/http_server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <chrono>

namespace rdmastack::runtime {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
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

// One keep-alive connection: read a request, answer it, repeat until the peer closes.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, const HttpServer& server)
      : stream_(std::move(socket)), server_(server) {}

  void Read() {
    request_ = {};
    stream_.expires_after(std::chrono::seconds(30));
    http::async_read(stream_, buffer_, request_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (!ec) self->Respond();
                     });
  }

 private:
  void Respond() {
    const HttpResponse r =
        server_.Dispatch(std::string(request_.method_string()), std::string(request_.target()));
    response_ = {};
    response_.version(request_.version());
    response_.result(static_cast<http::status>(r.status));
    response_.set(http::field::content_type, r.content_type);
    response_.keep_alive(request_.keep_alive());
    response_.body() = r.body;
    response_.prepare_payload();
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code ec, size_t) {
                        if (ec) return;
                        if (!self->response_.keep_alive()) {
                          beast::error_code ignored;
                          self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                          return;
                        }
                        self->Read();
                      });
  }

  beast::tcp_stream stream_;
  const HttpServer& server_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
};

}  // namespace

struct HttpServer::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::thread thread;
  uint16_t port = 0;

  void Accept(const HttpServer& server) {
    acceptor.async_accept([this, &server](beast::error_code ec, tcp::socket socket) {
      if (ec) return;  // acceptor closed
      std::make_shared<Session>(std::move(socket), server)->Read();
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

HttpResponse HttpServer::Dispatch(const std::string& method, const std::string& target) const {
  const std::string path = target.substr(0, target.find('?'));
  auto it = handlers_.find(path);
  if (it == handlers_.end()) return {404, "text/plain; charset=utf-8", "not found\n"};
  if (method != "GET" && method != "HEAD") {
    return {405, "text/plain; charset=utf-8", "method not allowed\n"};
  }
  return it->second();
}

Status HttpServer::Start(const std::string& bind_address) {
  if (impl_) return FailedPreconditionError("HTTP server already started");
  RDMASTACK_ASSIGN_OR_RETURN(BindAddress bind, ParseBindAddress(bind_address));
  auto impl = std::make_unique<Impl>();
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
  impl->thread = std::thread([raw] { raw->io.run(); });
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
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_.reset();
}

}  // namespace rdmastack::runtime
