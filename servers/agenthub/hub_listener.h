#pragma once
// The agent hub's TCP listener: the operator's connection limits (in all and per peer address)
// applied before gRPC reads a byte, so a refused peer costs no TLS handshake and none of the
// ~90 KiB a TLS connection holds.
//
// Why not gRPC's own listener: gRPC 1.51 (Debian bookworm) has no connection limit
// (GRPC_ARG_MAX_ALLOWED_INCOMING_CONNECTIONS came in a later release) and nothing that counts
// per peer address. So the hub accepts through runtime::LimitedAcceptor, as every other listener
// of the operator does, and hands each admitted socket to gRPC through ServerBuilder's external
// connection acceptor, which serves it with the hub's TLS credentials and channel arguments as if
// gRPC had accepted it.
//
// gRPC does not say when it closes a connection it was handed. So each one is remembered by its
// descriptor and the socket's inode: once the descriptor is closed, or names another file, the
// connection is gone and its slot is freed. That is looked at when a connection would otherwise be
// refused: the peer address's own connections every time, all of them at most every 100 ms. The
// count may lag, but it never lets more in than the limits.

#include <grpcpp/grpcpp.h>
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "base/status.h"
#include "operator/runtime/connection_limiter.h"
#include "operator/runtime/limited_acceptor.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::agenthub {

class HubListener {
 public:
  // Refusals are counted in rdmastack_listener_connections_refused_total{listener="agenthub"}.
  HubListener(runtime::ConnectionLimits limits, runtime::MetricsRegistry& metrics);
  ~HubListener();
  HubListener(const HubListener&) = delete;
  HubListener& operator=(const HubListener&) = delete;

  // Binds and listens ("host:port"; ":port" = every address, IPv6 and IPv4).
  Status Listen(const std::string& address);
  int port() const { return acceptor_.port(); }
  // Accepts on a thread of its own and hands each admitted connection to `grpc` (from
  // ServerBuilder::experimental().AddExternalConnectionAcceptor, its server started).
  void Start(std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> grpc);
  // Stops accepting; before the gRPC server shuts down (it drops what it is handed after).
  void Stop();

  // Connections handed to gRPC and still open (forgets those it closed first).
  size_t open_connections();

 private:
  struct Handed {
    dev_t device;
    ino_t inode;
    runtime::ConnectionLimiter::Slot slot;
  };
  void Handoff(boost::asio::ip::tcp::socket socket, runtime::ConnectionLimiter::Slot slot);
  // Frees the slots of connections gRPC has closed: those from `address` (every address when
  // empty); a look at every address waits kReclaimEvery after the last unless `always`.
  void Reclaim(const std::string& address, bool always);

  runtime::ConnectionLimiter limiter_;  // before handed_, whose slots point into it
  std::mutex mu_;
  std::unordered_map<int, Handed> handed_;  // by descriptor
  std::chrono::steady_clock::time_point next_reclaim_{};
  boost::asio::io_context io_;
  runtime::LimitedAcceptor acceptor_;
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> grpc_;
  std::thread thread_;
};

}  // namespace rdmastack::agenthub
