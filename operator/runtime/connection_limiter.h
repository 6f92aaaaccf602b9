#pragma once
// How many connections a server holds at once, in all and from one peer address: the bound
// every listener of the operator applies before it reads a byte (limited_acceptor.h). A peer over
// either limit is refused, never queued. The per-address limit is what keeps one pod from taking
// every slot; the total is what bounds the memory all peers together can make a server hold.
// Thread-safe; pure bookkeeping (no sockets).

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace rdmastack::runtime {

struct ConnectionLimits {
  size_t max_connections = 64;  // all peers together; at least 1
  // One peer address; 0 = no limit of its own (max_connections still applies).
  size_t max_connections_per_address = 8;
};

// Why a connection was refused: the `reason` label of rdmastack_listener_connections_refused_total.
inline constexpr char kRefusedMaxConnections[] = "max_connections";
inline constexpr char kRefusedMaxConnectionsPerAddress[] = "max_connections_per_address";

class ConnectionLimiter {
 public:
  // One admitted connection's place; destroying it frees the place. Must not outlive the limiter.
  class Slot {
   public:
    Slot(Slot&& other) noexcept;
    Slot& operator=(Slot&& other) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot();
    const std::string& address() const { return address_; }

   private:
    friend class ConnectionLimiter;
    Slot(ConnectionLimiter* limiter, std::string address)
        : limiter_(limiter), address_(std::move(address)) {}
    void Release();
    ConnectionLimiter* limiter_;
    std::string address_;
  };

  explicit ConnectionLimiter(ConnectionLimits limits);
  ConnectionLimiter(const ConnectionLimiter&) = delete;
  ConnectionLimiter& operator=(const ConnectionLimiter&) = delete;

  // A place for one more connection from `address`, or nullopt with `*refusal` set to the limit
  // it would break (kRefusedMaxConnectionsPerAddress before kRefusedMaxConnections).
  std::optional<Slot> Admit(const std::string& address, const char** refusal);

  size_t open() const;
  size_t open_from(const std::string& address) const;
  const ConnectionLimits& limits() const { return limits_; }

 private:
  void Release(const std::string& address);

  const ConnectionLimits limits_;
  mutable std::mutex mu_;
  size_t open_ = 0;
  std::unordered_map<std::string, size_t> by_address_;  // only addresses with a connection
};

}  // namespace rdmastack::runtime
