#pragma once
// A loopback TCP proxy for tests: forwards every connection to a target port until Freeze(), after
// which it reads and forwards nothing more and accepts new connections without serving them, while
// keeping every socket open. To the client that is an API server that hangs (no reset, no FIN),
// the failure a per-request deadline must survive.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace rdmastack::testing {

class TcpProxy {
 public:
  explicit TcpProxy(uint16_t target_port);
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  uint16_t port() const { return port_; }
  void Freeze() { frozen_ = true; }

 private:
  void AcceptLoop();
  void Pump(int client, int upstream);

  const uint16_t target_port_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> frozen_{false};
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::vector<int> fds_;
  std::vector<std::thread> threads_;
  std::thread accept_thread_;
};

}  // namespace rdmastack::testing
