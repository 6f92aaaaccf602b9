#pragma once
// The client side of one gRPC bidirectional-streaming call over HTTP/2 (nghttp2) and TLS
// (TlsSocket). It speaks the gRPC wire protocol to any gRPC server, the operator's AgentHub
// included; it exists because gRPC C++ alone keeps ~15 MiB resident even linked statically, twice
// the agent's budget (docs/bench-agent.md). Messages are opaque bytes here; the caller serializes.
//
// One I/O thread owns the socket and the nghttp2 session. Write/WritesDone/Cancel may be called
// from any thread, Read from one reader thread.

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack::agent::transport {

struct GrpcStreamOptions {
  std::string address;      // host:port
  std::string server_name;  // certificate name and :authority; "" = host of address
  std::string ca_pem;
  std::string method_path;  // "/package.Service/Method"
  std::string user_agent;
  std::chrono::milliseconds connect_timeout{10'000};
  size_t max_message_bytes = 4u << 20;
  const std::atomic<bool>* abort_connect = nullptr;
};

class GrpcBidiStream {
 public:
  // Connects, verifies the server and sends the request headers. Messages can be written at once.
  static StatusOr<std::unique_ptr<GrpcBidiStream>> Open(const GrpcStreamOptions& options);
  ~GrpcBidiStream();  // cancels the call if it is still open and waits for the I/O thread

  // Queues one message; false once the call has ended (then Finish says why).
  bool Write(std::string_view message);
  // Queues `bytes` as they are, without gRPC's framing: a message's head without the rest of it,
  // as a broken or hostile client sends (the hub's flood tests). The agent never calls it.
  bool WriteUnframed(std::string_view bytes);
  // Blocks for the next message; false at the end of the call.
  bool Read(std::string* message);
  // Half-closes: the server sees the end of the client's messages.
  void WritesDone();
  // Ends the call now (RST_STREAM CANCEL); Read and Write return false.
  void Cancel();
  // Waits for the call to end. OK only for grpc-status 0; otherwise the gRPC code and message,
  // or kUnavailable with what broke the connection.
  Status Finish();

 private:
  class Impl;
  explicit GrpcBidiStream(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// "grpc-message" values are percent-encoded (gRPC over HTTP/2 spec); exposed for tests.
std::string PercentDecode(std::string_view value);
// The canonical name of a gRPC status code ("UNAUTHENTICATED"), or the number.
std::string GrpcCodeName(int code);

}  // namespace rdmastack::agent::transport
