#pragma once
// A hostile peer at the agent hub's port, for the flood test: TCP connections that never start
// their TLS handshake, TLS connections that never open a stream, and Hellos as fast as a few
// threads can send them (made-up tokens claiming real nodes, and node names of 900 KiB). All from
// this process, so from one address. Each part counts what the hub did with it.

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rdmastack::testing {

struct HubFloodOptions {
  std::string host;  // IPv4 address of the hub
  uint16_t port = 0;
  std::string ca_pem;  // the hub's published CA
  // The name the hub's certificate must carry when `host` is not in it (an in-cluster hub's
  // certificate names its Service); "" = `host`.
  std::string server_name;
  std::vector<std::string> node_names;  // what the made-up Hellos claim
  int silent_sockets = 300;
  int idle_channels = 100;
  int hello_threads = 4;
  // Each Hello thread waits this long between Hellos (a flood, not a busy loop that would starve
  // the two-core test machine's API server).
  std::chrono::milliseconds hello_interval{5};
};

class HubFlood {
 public:
  explicit HubFlood(HubFloodOptions options) : options_(std::move(options)) {}
  ~HubFlood();

  // Opens the silent sockets and idle channels, starts the Hello threads.
  void Start();
  // Stops sending Hellos; sockets and channels stay open for the checks below.
  void StopHellos();

  // Status codes of the Hellos, and how many were sent.
  std::map<grpc::StatusCode, int> HelloCodes() const;
  int hellos() const { return hellos_; }
  int idle_channels_connected() const { return idle_connected_; }
  // How many silent sockets the hub has closed (EOF), waiting up to `wait` for the rest.
  int SilentSocketsClosed(std::chrono::milliseconds wait);
  // How many idle channels are still connected (READY).
  int IdleChannelsReady() const;

 private:
  void SendHellos(int thread);

  const HubFloodOptions options_;
  std::vector<int> sockets_;
  std::vector<std::shared_ptr<grpc::Channel>> idle_;
  std::atomic<int> idle_connected_{0};
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<int> hellos_{0};
  mutable std::mutex mu_;
  std::map<grpc::StatusCode, int> codes_;
};

}  // namespace rdmastack::testing
