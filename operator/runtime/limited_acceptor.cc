#include "operator/runtime/limited_acceptor.h"

#include <spdlog/spdlog.h>

#include "operator/runtime/bind_address.h"

namespace rdmastack::runtime {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

constexpr auto kLogEvery = std::chrono::minutes(1);
// After an accept error (out of file descriptors, most likely), wait this long before the next
// accept: retrying at once would spin on the same error while the connection waits in the backlog.
constexpr auto kAcceptRetry = std::chrono::milliseconds(100);

}  // namespace

std::string PeerAddressKey(const asio::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6()).to_string();
  }
  return address.to_string();
}

LimitedAcceptor::LimitedAcceptor(asio::io_context& io, ConnectionLimiter& limiter,
                                 ListenerOptions options)
    : io_(io), limiter_(limiter), options_(std::move(options)), acceptor_(io), retry_(io) {
  if (options_.metrics != nullptr) {
    refused_ = &options_.metrics->CounterFamily(
        "rdmastack_listener_connections_refused_total",
        "Connections closed as soon as they were accepted because the listener's connection "
        "limit (reason max_connections) or its limit per peer address "
        "(max_connections_per_address) was reached (docs/troubleshooting.md).",
        {"listener", "reason"});
  }
}

Status LimitedAcceptor::Listen(const std::string& bind_address) {
  RDMASTACK_ASSIGN_OR_RETURN(BindAddress bind, ParseBindAddress(bind_address));
  auto listen_on = [this](const tcp::endpoint& endpoint, bool dual_stack) {
    boost::system::error_code ec;
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec && dual_stack) acceptor_.set_option(asio::ip::v6_only(false), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      boost::system::error_code ignored;
      acceptor_.close(ignored);
    }
    return ec;
  };
  boost::system::error_code ec;
  // ":port" (no host): every address of both families where the host has IPv6.
  if (bind_address.starts_with(':')) {
    ec = listen_on(tcp::endpoint(tcp::v6(), bind.port), /*dual_stack=*/true);
    if (ec) ec = listen_on(tcp::endpoint(tcp::v4(), bind.port), false);
  } else {
    const asio::ip::address address = asio::ip::make_address(bind.host, ec);
    if (ec) return InvalidArgumentError("bind address host \"" + bind.host + "\": " + ec.message());
    ec = listen_on(tcp::endpoint(address, bind.port), false);
  }
  if (ec) return UnavailableError("cannot listen on " + bind_address + ": " + ec.message());
  port_ = acceptor_.local_endpoint().port();
  return OkStatus();
}

void LimitedAcceptor::Start(Handler handler) {
  handler_ = std::move(handler);
  Accept();
}

void LimitedAcceptor::Close() {
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  retry_.cancel();
}

void LimitedAcceptor::Accept() {
  acceptor_.async_accept(
      asio::make_strand(io_), [this](boost::system::error_code ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;  // Close()
        if (ec) {
          // Out of descriptors, this repeats every retry: logged once a minute.
          if (const auto now = std::chrono::steady_clock::now(); now >= next_error_log_) {
            next_error_log_ = now + kLogEvery;
            spdlog::warn("{} listener: accept failed ({}); retrying every {} ms", options_.name,
                         ec.message(), kAcceptRetry.count());
          }
          retry_.expires_after(kAcceptRetry);
          retry_.async_wait([this](boost::system::error_code wait) {
            if (!wait) Accept();
          });
          return;
        }
        boost::system::error_code peer_error;
        const tcp::endpoint peer = socket.remote_endpoint(peer_error);
        if (!peer_error) {
          const std::string address = PeerAddressKey(peer.address());
          const char* refusal = nullptr;
          std::optional<ConnectionLimiter::Slot> slot = limiter_.Admit(address, &refusal);
          // Once per limit broken: freeing the address's own slots may leave the total in the way.
          for (int tries = 0; !slot && options_.reclaim && tries < 2; ++tries) {
            const char* broken = refusal;
            options_.reclaim(address, refusal);
            slot = limiter_.Admit(address, &refusal);
            if (!slot && refusal == broken) break;
          }
          if (slot) {
            handler_(std::move(socket), std::move(*slot));
          } else {
            Refuse(std::move(socket), address, refusal);
          }
        }  // else: the peer is gone already; the socket closes here.
        Accept();
      });
}

void LimitedAcceptor::Refuse(tcp::socket socket, const std::string& address, const char* reason) {
  // Counted before the peer can see the close.
  if (refused_ != nullptr) refused_->With({options_.name, reason}).Inc();
  boost::system::error_code ignored;
  socket.close(ignored);
  const auto now = std::chrono::steady_clock::now();
  if (now < next_log_) {
    ++unlogged_;
    return;
  }
  next_log_ = now + kLogEvery;
  const ConnectionLimits& limits = limiter_.limits();
  spdlog::warn(
      "{} listener: refused a connection from {} ({}: {} open from that address, limit {}; {} "
      "open in all, limit {}){}; further refusals in the next minute are only counted "
      "(rdmastack_listener_connections_refused_total)",
      options_.name, address, reason, limiter_.open_from(address),
      limits.max_connections_per_address, limiter_.open(), limits.max_connections,
      unlogged_ > 0 ? " after " + std::to_string(unlogged_) + " unlogged refusals" : "");
  unlogged_ = 0;
}

}  // namespace rdmastack::runtime
