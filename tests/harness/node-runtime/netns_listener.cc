#include "tests/harness/node-runtime/netns_listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace rdmastack::sim {

StatusOr<int> ListenInNetns(const std::string& netns_path, const std::string& ip, int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, ip.c_str(), &addr.sin_addr) != 1) {
    return InvalidArgumentError("'" + ip + "' is not an IPv4 address");
  }
  // setns changes only the calling thread's namespace, and a socket keeps the namespace it was
  // made in: make it on a thread of its own, which ends right after.
  StatusOr<int> result = InternalError("not run");
  std::thread([&] {
    const int ns = ::open(netns_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (ns < 0 || ::setns(ns, CLONE_NEWNET) != 0) {
      result =
          UnavailableError("enter network namespace " + netns_path + ": " + std::strerror(errno));
      if (ns >= 0) ::close(ns);
      return;
    }
    ::close(ns);
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    if (fd < 0 || ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::listen(fd, SOMAXCONN) != 0) {
      result = UnavailableError("listen on " + ip + ":" + std::to_string(port) + " in " +
                                netns_path + ": " + std::strerror(errno));
      if (fd >= 0) ::close(fd);
      return;
    }
    result = fd;
  }).join();
  return result;
}

}  // namespace rdmastack::sim
