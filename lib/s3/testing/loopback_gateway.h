#pragma once
// A plain-HTTP server on 127.0.0.1 for tests of what the S3 client reads from a gateway. Each
// request goes to a handler that writes raw response bytes, so a test can answer with a body
// that never ends; the server counts the response bytes the kernel took from it, an upper bound
// on what the client can have read. Connections are served one after another, on one thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

#include "lib/s3/http.h"

namespace rdmastack::s3::testing {

struct ReceivedRequest {
  std::string method;
  std::string target;
};

class ResponseWriter {
 public:
  explicit ResponseWriter(int fd, std::atomic<uint64_t>& sent) : fd_(fd), sent_(sent) {}
  // Raw bytes onto the connection; false once the client has gone.
  bool Write(std::string_view bytes);

 private:
  int fd_;
  std::atomic<uint64_t>& sent_;
};

// How an endless body is framed: as chunks, or until the connection closes (no length at all).
enum class Framing { kChunked, kUntilClose };

// A 200 whose body is `prefix` followed by filler bytes until the client hangs up.
void WriteEndlessAnswer(ResponseWriter& out, Framing framing, std::string_view prefix = "");
// A 200 with this body and its Content-Length.
void WriteAnswer(ResponseWriter& out, std::string_view body, int status = 200);

class LoopbackGateway {
 public:
  using Handler = std::function<void(const ReceivedRequest&, ResponseWriter&)>;
  explicit LoopbackGateway(Handler handler);
  ~LoopbackGateway();
  LoopbackGateway(const LoopbackGateway&) = delete;
  LoopbackGateway& operator=(const LoopbackGateway&) = delete;

  Endpoint endpoint() const { return Endpoint{"http", "127.0.0.1", port_}; }
  uint64_t bytes_sent() const { return sent_.load(); }
  int requests() const { return requests_.load(); }

 private:
  void Serve();

  Handler handler_;
  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> sent_{0};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

}  // namespace rdmastack::s3::testing
