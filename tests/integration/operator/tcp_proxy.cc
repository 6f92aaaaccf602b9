#include "tests/integration/operator/tcp_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <stdexcept>

namespace rdmastack::testing {
namespace {

sockaddr_in Loopback(uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

}  // namespace

TcpProxy::TcpProxy(uint16_t target_port) : target_port_(target_port) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = Loopback(0);
  if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listen_fd_, 64) != 0) {
    throw std::runtime_error("tcp proxy: cannot listen on 127.0.0.1");
  }
  socklen_t len = sizeof addr;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

TcpProxy::~TcpProxy() {
  stopping_ = true;
  shutdown(listen_fd_, SHUT_RDWR);
  accept_thread_.join();
  close(listen_fd_);
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (int fd : fds_) shutdown(fd, SHUT_RDWR);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
  for (int fd : fds_) close(fd);
}

void TcpProxy::AcceptLoop() {
  while (!stopping_) {
    const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    std::lock_guard<std::mutex> l(mu_);
    fds_.push_back(client);
    if (stopping_) break;
    if (frozen_) continue;  // accepted, never served
    const int upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in target = Loopback(target_port_);
    if (upstream < 0 ||
        connect(upstream, reinterpret_cast<sockaddr*>(&target), sizeof target) != 0) {
      if (upstream >= 0) close(upstream);
      shutdown(client, SHUT_RDWR);
      continue;
    }
    fds_.push_back(upstream);
    threads_.emplace_back([this, client, upstream] { Pump(client, upstream); });
  }
}

void TcpProxy::Pump(int client, int upstream) {
  std::array<char, 64 * 1024> buf;
  while (!stopping_) {
    if (frozen_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    pollfd fds[2] = {{client, POLLIN, 0}, {upstream, POLLIN, 0}};
    if (poll(fds, 2, 50) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      if (frozen_) break;
      const ssize_t n = read(fds[i].fd, buf.data(), buf.size());
      if (n <= 0) {
        shutdown(client, SHUT_RDWR);
        shutdown(upstream, SHUT_RDWR);
        return;
      }
      const int to = i == 0 ? upstream : client;
      for (ssize_t sent = 0; sent < n;) {
        const ssize_t w = write(to, buf.data() + sent, static_cast<size_t>(n - sent));
        if (w <= 0) return;
        sent += w;
      }
    }
  }
}

}  // namespace rdmastack::testing
