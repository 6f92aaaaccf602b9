#include "tests/harness/node-runtime/api_forwarder.h"

#include <spdlog/spdlog.h>

#include <array>
#include <boost/asio.hpp>

namespace rdmastack::sim {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

// Two sockets and two one-way pumps; the session lives as long as a pump holds it.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket client, const tcp::endpoint& target)
      : client_(std::move(client)), upstream_(client_.get_executor()), target_(target) {}

  void Begin() {
    auto self = shared_from_this();
    upstream_.async_connect(target_, [self](boost::system::error_code ec) {
      if (ec) {
        self->client_.close(ec);
        return;
      }
      Pump(self, self->client_, self->upstream_, self->up_);
      Pump(self, self->upstream_, self->client_, self->down_);
    });
  }

 private:
  using Buffer = std::array<char, 16384>;

  static void Pump(std::shared_ptr<Session> self, tcp::socket& from, tcp::socket& to, Buffer& buf) {
    from.async_read_some(
        net::buffer(buf), [self, &from, &to, &buf](boost::system::error_code ec, size_t n) {
          if (ec) {
            boost::system::error_code ignored;
            to.shutdown(tcp::socket::shutdown_send, ignored);
            return;
          }
          net::async_write(to, net::buffer(buf, n),
                           [self, &from, &to, &buf](boost::system::error_code wec, size_t) {
                             if (wec) {
                               boost::system::error_code ignored;
                               from.close(ignored);
                               return;
                             }
                             Pump(self, from, to, buf);
                           });
        });
  }

  tcp::socket client_;
  tcp::socket upstream_;
  tcp::endpoint target_;
  Buffer up_{};
  Buffer down_{};
};

}  // namespace

struct ApiForwarder::Impl {
  net::io_context io;
  tcp::acceptor acceptor{io};
  tcp::endpoint target;

  void Accept() {
    acceptor.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted) return;
      if (!ec) std::make_shared<Session>(std::move(socket), target)->Begin();
      Accept();
    });
  }
};

ApiForwarder::ApiForwarder() : impl_(std::make_unique<Impl>()) {}

ApiForwarder::~ApiForwarder() {
  impl_->io.stop();
  if (thread_.joinable()) thread_.join();
}

Status ApiForwarder::Start(const std::string& listen_ip, int listen_port,
                           const std::string& target_ip, int target_port) {
  boost::system::error_code ec;
  const auto listen_addr = net::ip::make_address(listen_ip, ec);
  const auto target_addr = ec ? net::ip::address() : net::ip::make_address(target_ip, ec);
  if (ec) return InvalidArgumentError("api forward: bad address: " + ec.message());
  impl_->target = tcp::endpoint(target_addr, static_cast<unsigned short>(target_port));
  const tcp::endpoint listen(listen_addr, static_cast<unsigned short>(listen_port));
  impl_->acceptor.open(listen.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(listen, ec);
  if (!ec) impl_->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return UnavailableError("api forward: listen on " + listen_ip + ":" +
                            std::to_string(listen_port) + ": " + ec.message());
  }
  impl_->Accept();
  thread_ = std::thread([this] { impl_->io.run(); });
  spdlog::info("forwarding {}:{} to the API server at {}:{}", listen_ip, listen_port, target_ip,
               target_port);
  return OkStatus();
}

}  // namespace rdmastack::sim
