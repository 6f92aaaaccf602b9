#include "tests/harness/hub_hold.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <memory>

namespace rdmastack::testing {
namespace {

constexpr char kConnectPath[] = "/rdmastack.agent.v1.AgentHub/Connect";

struct Held {
  int fd;
  SSL* ssl;
};

void Free(const Held& h) {
  SSL_free(h.ssl);
  ::close(h.fd);
}

void AppendFrame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload,
                 std::string* out) {
  const size_t n = payload.size();
  const char header[9] = {static_cast<char>(n >> 16),
                          static_cast<char>(n >> 8),
                          static_cast<char>(n),
                          static_cast<char>(type),
                          static_cast<char>(flags),
                          static_cast<char>(stream >> 24),
                          static_cast<char>(stream >> 16),
                          static_cast<char>(stream >> 8),
                          static_cast<char>(stream)};
  out->append(header, sizeof(header));
  out->append(payload);
}

// HPACK "literal header field without indexing, new name", lengths below 127, no Huffman.
void AppendHeader(const std::string& name, const std::string& value, std::string* block) {
  block->push_back(0);
  block->push_back(static_cast<char>(name.size()));
  block->append(name);
  block->push_back(static_cast<char>(value.size()));
  block->append(value);
}

// HTTP/2's preface and SETTINGS (and an ACK of the hub's), a Connect stream's HEADERS, and DATA
// frames carrying the head of a message announcing `announced` bytes and `sent` of them.
std::string UnfinishedMessage(size_t announced, size_t sent) {
  std::string out = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  AppendFrame(4, 0, 0, "", &out);  // SETTINGS
  AppendFrame(4, 1, 0, "", &out);  // SETTINGS ACK (the hub sends its SETTINGS first)
  std::string block;
  AppendHeader(":method", "POST", &block);
  AppendHeader(":scheme", "https", &block);
  AppendHeader(":path", kConnectPath, &block);
  AppendHeader(":authority", "127.0.0.1", &block);
  AppendHeader("content-type", "application/grpc", &block);
  AppendHeader("te", "trailers", &block);
  AppendFrame(1, 4, 1, block, &out);  // HEADERS, END_HEADERS, stream 1
  std::string body = {0, static_cast<char>(announced >> 24), static_cast<char>(announced >> 16),
                      static_cast<char>(announced >> 8), static_cast<char>(announced)};
  body.append(sent, 'x');
  for (size_t at = 0; at < body.size(); at += 16384) {
    AppendFrame(0, 0, 1, body.substr(at, 16384), &out);  // DATA within the default frame size
  }
  return out;
}

}  // namespace

std::vector<std::string> LoopbackSources(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    out.push_back("127.0." + std::to_string(1 + i / 250) + "." + std::to_string(1 + i % 250));
  }
  return out;
}

void HubHold::Start() {
  // OpenSSL writes with write(2): to a connection the hub has closed that raises SIGPIPE, which
  // would end the whole process (the benchmark) instead of failing the write.
  std::signal(SIGPIPE, SIG_IGN);
  for (const std::string& source : options_.sources) {
    threads_.emplace_back([this, source] { Hold(source); });
  }
}

void HubHold::Stop() {
  stop_ = true;
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void HubHold::Hold(const std::string& source) {
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_client_method()),
                                                        &SSL_CTX_free);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);  // a hostile peer trusts anything
  static const unsigned char kAlpn[] = {2, 'h', '2'};       // or gRPC refuses the handshake
  SSL_CTX_set_alpn_protos(ctx.get(), kAlpn, sizeof(kAlpn));
  const std::string payload = options_.kind == HubHoldOptions::Kind::kUnfinishedMessage
                                  ? UnfinishedMessage(options_.announced_bytes, options_.sent_bytes)
                                  : "";
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, source.c_str(), &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(options_.port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::vector<Held> held;
  auto open_one = [&]() -> bool {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    timeval timeout{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0 ||
        ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
      ::close(fd);
      return false;
    }
    SSL* ssl = SSL_new(ctx.get());
    SSL_set_fd(ssl, fd);
    if (SSL_connect(ssl) != 1) {
      ++refused_;
      Free({fd, ssl});
      return false;
    }
    ++handshakes_;
    if (!payload.empty() && SSL_write(ssl, payload.data(), static_cast<int>(payload.size())) <= 0) {
      ++closed_later_;
      Free({fd, ssl});
      return false;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    held.push_back({fd, ssl});
    ++open_;
    return true;
  };
  while (!stop_) {
    while (!stop_ && static_cast<int>(held.size()) < options_.per_source) {
      if (!open_one()) {
        // Refused: try again soon, as a flood would, without spinning a core on it.
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        break;
      }
    }
    std::vector<pollfd> fds;
    for (const Held& h : held) fds.push_back({h.fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), 200) <= 0) continue;
    std::vector<Held> still;
    for (size_t i = 0; i < held.size(); ++i) {
      bool closed = false;
      if (fds[i].revents != 0) {
        // Read and drop what the hub sends (SETTINGS, a GOAWAY, trailers) until it would block.
        char buffer[4096];
        for (;;) {
          const int n = SSL_read(held[i].ssl, buffer, sizeof(buffer));
          if (n > 0) continue;
          closed = SSL_get_error(held[i].ssl, n) != SSL_ERROR_WANT_READ;
          break;
        }
      }
      if (closed) {
        ++closed_later_;
        --open_;
        Free(held[i]);
      } else {
        still.push_back(held[i]);
      }
    }
    held.swap(still);
  }
  for (const Held& h : held) {
    --open_;
    Free(h);
  }
}

}  // namespace rdmastack::testing
