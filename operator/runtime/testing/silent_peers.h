#pragma once
// TCP connections to a server on 127.0.0.1 from one source address that send nothing (or only
// what Send gives them), for the tests of the listeners' limits and deadlines. Every 127/8
// address is this host, so "127.0.0.2" and "127.0.0.3" are two peer addresses of their own.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

namespace rdmastack::runtime::testing {

class SilentPeers {
 public:
  SilentPeers(const std::string& source, int port, int n) {
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, source.c_str(), &from.sin_addr);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < n; ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      EXPECT_GE(fd, 0);
      EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)), 0) << source;
      EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)), 0);
      fds_.push_back(fd);
    }
  }
  ~SilentPeers() {
    for (int fd : fds_) ::close(fd);
  }
  SilentPeers(const SilentPeers&) = delete;
  SilentPeers& operator=(const SilentPeers&) = delete;

  void Send(int i, const std::string& bytes) {
    (void)::send(fds_[i], bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }
  // This side goes (the server reads EOF); the descriptor stays until the object goes.
  void Hangup(int i) { ::shutdown(fds_[i], SHUT_RDWR); }
  // Whether the server closed connection i (EOF or reset) within `wait`.
  bool Closed(int i, std::chrono::milliseconds wait) {
    pollfd p{fds_[i], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return false;
    char byte = 0;
    const ssize_t r = ::recv(fds_[i], &byte, 1, MSG_DONTWAIT);
    return r == 0 || (r < 0 && errno == ECONNRESET);
  }
  // How many the server closed, waiting up to `wait` in all.
  int ClosedCount(std::chrono::milliseconds wait) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    int closed = 0;
    for (int i = 0; i < static_cast<int>(fds_.size()); ++i) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      closed += Closed(i, std::max(std::chrono::milliseconds(0), left));
    }
    return closed;
  }

 private:
  std::vector<int> fds_;
};

}  // namespace rdmastack::runtime::testing
