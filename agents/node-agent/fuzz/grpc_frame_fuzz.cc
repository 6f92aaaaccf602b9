// libFuzzer target over the gRPC message decoder, which reads bytes straight off the network.
// Property: however the bytes are split into DATA chunks, the decoder yields the same messages
// and the same verdict.
#include <string>
#include <string_view>
#include <vector>

#include "agents/node-agent/transport/grpc_frame.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using rdmastack::agent::transport::GrpcFrameDecoder;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  constexpr size_t kLimit = 1 << 16;

  GrpcFrameDecoder whole(kLimit);
  std::vector<std::string> whole_messages;
  const bool whole_ok = whole.Feed(bytes, &whole_messages).ok();

  // Split at a point taken from the input itself, then feed the rest byte by byte.
  const size_t cut = size == 0 ? 0 : data[0] % (size + 1);
  GrpcFrameDecoder pieces(kLimit);
  std::vector<std::string> piece_messages;
  bool pieces_ok = pieces.Feed(bytes.substr(0, cut), &piece_messages).ok();
  for (size_t i = cut; i < size && pieces_ok; ++i) {
    pieces_ok = pieces.Feed(bytes.substr(i, 1), &piece_messages).ok();
  }
  if (whole_ok != pieces_ok) __builtin_trap();
  if (whole_ok && (whole_messages != piece_messages ||
                   whole.AtMessageBoundary() != pieces.AtMessageBoundary())) {
    __builtin_trap();
  }
  for (const auto& m : whole_messages) {
    if (m.size() > kLimit) __builtin_trap();
  }
  return 0;
}
