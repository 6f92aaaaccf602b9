#pragma once
// gRPC's length-prefixed message framing on an HTTP/2 stream: one flag byte (compressed or not),
// a 4-byte big-endian length, then the serialized message. Pure functions, so the byte-level edge
// cases (a message split across DATA frames, several in one) are unit-tested without a socket.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack::agent::transport {

inline constexpr size_t kGrpcFrameHeaderBytes = 5;

// Appends the framed form of an uncompressed message to *out.
void AppendGrpcFrame(std::string_view message, std::string* out);

// Reassembles messages from DATA payloads. We never offer compression (grpc-accept-encoding is
// identity), so a compressed message is a protocol error; so is one larger than the limit, which
// keeps a broken or hostile peer from making the agent allocate without bound.
class GrpcFrameDecoder {
 public:
  explicit GrpcFrameDecoder(size_t max_message_bytes) : max_message_bytes_(max_message_bytes) {}

  // Appends every message completed by these bytes to *messages. After an error the decoder
  // stays failed.
  Status Feed(std::string_view bytes, std::vector<std::string>* messages);
  // True when no partial message is buffered (a stream may end only here).
  bool AtMessageBoundary() const { return buffer_.empty(); }

 private:
  size_t max_message_bytes_;
  std::string buffer_;
  Status failed_;
};

}  // namespace rdmastack::agent::transport
