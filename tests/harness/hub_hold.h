#pragma once
// Peers that hold the agent hub's connections for as long as it lets them, from many source
// addresses at once (every 127/8 address is the local host, so a bench on loopback has as many
// peer addresses as it likes): each source keeps `per_source` connections open and opens a new
// one whenever the hub closes one. Two kinds, for the flood benchmark (docs/agenthub.md "A
// stream"):
//   kIdleTls            the TLS handshake, then nothing (not even HTTP/2's preface);
//   kUnfinishedMessage  the TLS handshake, HTTP/2's preface, a Connect stream, and the head of a
//                       message announcing `announced_bytes` of which `sent_bytes` follow, then
//                       nothing: gRPC buffers what came until the stream ends.
// It counts what the hub did with them: connections closed before their handshake finished
// (refused at accept), and those closed after it.

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace rdmastack::testing {

struct HubHoldOptions {
  enum class Kind { kIdleTls, kUnfinishedMessage };
  Kind kind = Kind::kIdleTls;
  uint16_t port = 0;  // the hub's, on 127.0.0.1
  // Source addresses, each a peer address of its own; one thread each.
  std::vector<std::string> sources;
  int per_source = 32;
  // kUnfinishedMessage: what the message head announces, and how much of it is sent (within
  // HTTP/2's initial 64 KiB flow-control window).
  size_t announced_bytes = 1 << 20;
  size_t sent_bytes = 60 * 1024;
};

// "127.0.X.Y" for n sources from 127.0.1.1 on.
std::vector<std::string> LoopbackSources(int n);

class HubHold {
 public:
  explicit HubHold(HubHoldOptions options) : options_(std::move(options)) {}
  ~HubHold() { Stop(); }
  HubHold(const HubHold&) = delete;
  HubHold& operator=(const HubHold&) = delete;

  void Start();
  // Closes every connection.
  void Stop();

  int handshakes() const { return handshakes_; }      // TLS handshakes completed
  int refused() const { return refused_; }            // closed before the handshake finished
  int closed_later() const { return closed_later_; }  // closed by the hub after it
  int open() const { return open_; }                  // held now

 private:
  void Hold(const std::string& source);

  const HubHoldOptions options_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<int> handshakes_{0}, refused_{0}, closed_later_{0}, open_{0};
};

}  // namespace rdmastack::testing
