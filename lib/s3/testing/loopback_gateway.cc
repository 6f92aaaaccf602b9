#include "lib/s3/testing/loopback_gateway.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace rdmastack::s3::testing {
namespace {

// Small, so that what sits in the kernel between the two ends stays small beside a test's limit.
constexpr int kSendBufferBytes = 16 * 1024;

// The request head and as much body as its Content-Length says; "" when the client went.
std::string ReadRequest(int fd) {
  std::string in;
  char buf[4096];
  size_t head_end = std::string::npos;
  while ((head_end = in.find("\r\n\r\n")) == std::string::npos) {
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return "";
    in.append(buf, static_cast<size_t>(n));
  }
  size_t length = 0;
  for (std::string_view name : {"Content-Length: ", "content-length: "}) {
    if (const size_t at = in.find(name); at != std::string::npos && at < head_end)
      length = std::strtoul(in.c_str() + at + name.size(), nullptr, 10);
  }
  while (in.size() < head_end + 4 + length) {
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    in.append(buf, static_cast<size_t>(n));
  }
  return in;
}

}  // namespace

bool ResponseWriter::Write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent_ += static_cast<uint64_t>(n);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void WriteEndlessAnswer(ResponseWriter& out, Framing framing, std::string_view prefix) {
  const std::string filler(8192, 'x');
  if (framing == Framing::kChunked) {
    char size[32];
    auto chunk = [&](std::string_view data) {
      std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
      return out.Write(size) && out.Write(data) && out.Write("\r\n");
    };
    if (!out.Write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")) return;
    if (!prefix.empty() && !chunk(prefix)) return;
    while (chunk(filler)) {
    }
    return;
  }
  if (!out.Write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n") || !out.Write(prefix)) return;
  while (out.Write(filler)) {
  }
}

void WriteAnswer(ResponseWriter& out, std::string_view body, int status) {
  out.Write("HTTP/1.1 " + std::to_string(status) + " Answer\r\nContent-Length: " +
            std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n");
  out.Write(body);
}

LoopbackGateway::LoopbackGateway(Handler handler) : handler_(std::move(handler)) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(address);
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
      ::listen(listener_, 8) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    throw std::runtime_error("cannot listen on 127.0.0.1");
  }
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { Serve(); });
}

LoopbackGateway::~LoopbackGateway() {
  stopping_ = true;
  ::shutdown(listener_, SHUT_RDWR);  // ends a blocked accept()
  thread_.join();
  ::close(listener_);
}

void LoopbackGateway::Serve() {
  while (!stopping_) {
    const int fd = ::accept(listener_, nullptr, nullptr);
    if (fd < 0) return;
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kSendBufferBytes, sizeof(kSendBufferBytes));
    const std::string request = ReadRequest(fd);
    if (!request.empty()) {
      ++requests_;
      ReceivedRequest r;
      const size_t space = request.find(' ');
      r.method = request.substr(0, space);
      r.target = request.substr(space + 1, request.find(' ', space + 1) - space - 1);
      ResponseWriter writer(fd, sent_);
      handler_(r, writer);
    }
    ::close(fd);
  }
}

}  // namespace rdmastack::s3::testing
