#pragma once
// The accept loop of every server the operator runs: the health probes, /metrics and the pod
// webhook (http_server.h) and the agent hub (servers/agenthub/agent_hub.h). Each accepted
// connection is checked against the server's ConnectionLimiter before anything reads from it:
// one over a limit is closed at once, not queued, and counted in
// rdmastack_listener_connections_refused_total{listener, reason} (the first of each minute is
// logged); the others go to the server with their slot. So no server can be made to hold more
// than its limits, and no peer address more than its share, whatever protocol comes after.

#include <boost/asio.hpp>
#include <chrono>
#include <functional>
#include <string>

#include "base/status.h"
#include "operator/runtime/connection_limiter.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::runtime {

struct ListenerOptions {
  // The `listener` label of the metrics and the name in log lines: "probes", "metrics",
  // "webhook", "agenthub".
  std::string name = "http";
  ConnectionLimits limits;
  // Where rdmastack_listener_connections_refused_total goes; none when null.
  MetricsRegistry* metrics = nullptr;
  // For a server that hands its connections to code that does not say when they end (gRPC): called
  // when a connection from `address` would be refused for `refusal` (kRefused...), to free the
  // slots of connections that are gone; the limits are then checked again.
  std::function<void(const std::string& address, const char* refusal)> reclaim;
};

// The address a limit counts: an IPv4 peer of a dual-stack socket (::ffff:10.0.0.1) as IPv4.
std::string PeerAddressKey(const boost::asio::ip::address& address);

class LimitedAcceptor {
 public:
  using Handler =
      std::function<void(boost::asio::ip::tcp::socket socket, ConnectionLimiter::Slot slot)>;

  // `limiter` is the server's: it must outlive every slot handed out (and so the io_context,
  // whose destruction destroys the connections still pending there).
  LimitedAcceptor(boost::asio::io_context& io, ConnectionLimiter& limiter, ListenerOptions options);
  LimitedAcceptor(const LimitedAcceptor&) = delete;
  LimitedAcceptor& operator=(const LimitedAcceptor&) = delete;

  // Binds and listens. "127.0.0.1:8080", "[::1]:0"; ":8080" is every address, IPv6 and IPv4
  // (IPv4 alone where the host has no IPv6). Port 0 picks a free port.
  Status Listen(const std::string& bind_address);
  uint16_t port() const { return port_; }
  int native_handle() { return acceptor_.native_handle(); }

  // Accepts until Close(). Each admitted connection's socket (on a strand of its own) goes to
  // `handler`, on one of the io_context's threads.
  void Start(Handler handler);
  // Stops accepting; from one of the io_context's threads (as the acceptor's other calls are).
  void Close();

 private:
  void Accept();
  void Refuse(boost::asio::ip::tcp::socket socket, const std::string& address, const char* reason);

  boost::asio::io_context& io_;
  ConnectionLimiter& limiter_;
  const ListenerOptions options_;
  Family<Counter>* refused_ = nullptr;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_;
  Handler handler_;
  uint16_t port_ = 0;
  // Refusals are logged once a minute: a flood would otherwise write a line per connection.
  std::chrono::steady_clock::time_point next_log_{};
  size_t unlogged_ = 0;
  std::chrono::steady_clock::time_point next_error_log_{};
};

}  // namespace rdmastack::runtime
