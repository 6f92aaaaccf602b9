#include "agents/node-agent/transport/grpc_frame.h"

namespace rdmastack::agent::transport {

void AppendGrpcFrame(std::string_view message, std::string* out) {
  const auto n = static_cast<uint32_t>(message.size());
  const char header[kGrpcFrameHeaderBytes] = {0, static_cast<char>(n >> 24),
                                              static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                                              static_cast<char>(n)};
  out->append(header, sizeof(header));
  out->append(message);
}

Status GrpcFrameDecoder::Feed(std::string_view bytes, std::vector<std::string>* messages) {
  if (!failed_.ok()) return failed_;
  buffer_.append(bytes);
  size_t pos = 0;
  while (buffer_.size() - pos >= kGrpcFrameHeaderBytes) {
    const auto* h = reinterpret_cast<const uint8_t*>(buffer_.data() + pos);
    if (h[0] != 0) {
      failed_ = InternalError("hub sent a compressed gRPC message (flag " + std::to_string(h[0]) +
                              ") although the agent accepts only identity encoding");
      return failed_;
    }
    const size_t len = (size_t{h[1]} << 24) | (size_t{h[2]} << 16) | (size_t{h[3]} << 8) | h[4];
    if (len > max_message_bytes_) {
      failed_ = ResourceExhaustedError("hub message of " + std::to_string(len) +
                                       " bytes exceeds the agent's limit of " +
                                       std::to_string(max_message_bytes_));
      return failed_;
    }
    if (buffer_.size() - pos - kGrpcFrameHeaderBytes < len) break;
    messages->emplace_back(buffer_, pos + kGrpcFrameHeaderBytes, len);
    pos += kGrpcFrameHeaderBytes + len;
  }
  buffer_.erase(0, pos);
  return OkStatus();
}

}  // namespace rdmastack::agent::transport
