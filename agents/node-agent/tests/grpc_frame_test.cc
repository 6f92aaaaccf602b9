// gRPC message framing and the small header helpers of the agent's transport.
#include "agents/node-agent/transport/grpc_frame.h"

#include <gtest/gtest.h>

#include "agents/node-agent/transport/grpc_stream.h"

namespace rdmastack::agent::transport {
namespace {

std::string Framed(std::string_view m) {
  std::string out;
  AppendGrpcFrame(m, &out);
  return out;
}

TEST(GrpcFrameTest, PrefixIsUncompressedFlagAndBigEndianLength) {
  const std::string f = Framed(std::string(300, 'x'));
  ASSERT_EQ(f.size(), 305u);
  EXPECT_EQ(f[0], 0);
  EXPECT_EQ(static_cast<uint8_t>(f[1]), 0);
  EXPECT_EQ(static_cast<uint8_t>(f[2]), 0);
  EXPECT_EQ(static_cast<uint8_t>(f[3]), 1);  // 300 = 0x012c
  EXPECT_EQ(static_cast<uint8_t>(f[4]), 0x2c);
}

TEST(GrpcFrameTest, MessagesSplitAcrossChunksAreReassembledInOrder) {
  const std::string wire = Framed("hello") + Framed("") + Framed(std::string(70000, 'z'));
  // Every split point, fed one byte at a time at the edges: the decoder must never emit a partial
  // message or lose bytes.
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{5}, size_t{4096}, wire.size()}) {
    GrpcFrameDecoder decoder(1 << 20);
    std::vector<std::string> got;
    for (size_t pos = 0; pos < wire.size(); pos += chunk) {
      ASSERT_TRUE(decoder.Feed(std::string_view(wire).substr(pos, chunk), &got).ok());
    }
    ASSERT_EQ(got.size(), 3u) << "chunk " << chunk;
    EXPECT_EQ(got[0], "hello");
    EXPECT_EQ(got[1], "");
    EXPECT_EQ(got[2].size(), 70000u);
    EXPECT_TRUE(decoder.AtMessageBoundary());
  }
}

TEST(GrpcFrameTest, PartialMessageIsNotABoundary) {
  GrpcFrameDecoder decoder(1 << 20);
  std::vector<std::string> got;
  const std::string f = Framed("abcdef");
  ASSERT_TRUE(decoder.Feed(std::string_view(f).substr(0, 7), &got).ok());
  EXPECT_TRUE(got.empty());
  EXPECT_FALSE(decoder.AtMessageBoundary());
}

TEST(GrpcFrameTest, CompressedMessageIsAProtocolErrorAndStaysOne) {
  GrpcFrameDecoder decoder(1 << 20);
  std::vector<std::string> got;
  std::string f = Framed("abc");
  f[0] = 1;
  Status st = decoder.Feed(f, &got);
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_NE(st.message().find("compressed"), std::string::npos) << st.message();
  EXPECT_FALSE(decoder.Feed(Framed("ok"), &got).ok());
  EXPECT_TRUE(got.empty());
}

TEST(GrpcFrameTest, OversizedMessageIsRefusedBeforeItIsBuffered) {
  GrpcFrameDecoder decoder(1000);
  std::vector<std::string> got;
  // Only the 5-byte header of a 1 GiB message: refused at once, not after buffering.
  const std::string header("\x00\x40\x00\x00\x00", 5);
  Status st = decoder.Feed(header, &got);
  EXPECT_EQ(st.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(st.message().find("1073741824"), std::string::npos) << st.message();
}

TEST(GrpcHeadersTest, GrpcMessageIsPercentDecoded) {
  EXPECT_EQ(PercentDecode("token%20rejected%3A%20expired"), "token rejected: expired");
  EXPECT_EQ(PercentDecode("100%"), "100%");    // a trailing % is kept
  EXPECT_EQ(PercentDecode("%zzok"), "%zzok");  // not hex: kept as is
  EXPECT_EQ(PercentDecode("%E2%9C%93"), "\xE2\x9C\x93");
}

TEST(GrpcHeadersTest, CodeNames) {
  EXPECT_EQ(GrpcCodeName(16), "UNAUTHENTICATED");
  EXPECT_EQ(GrpcCodeName(0), "OK");
  EXPECT_EQ(GrpcCodeName(99), "99");
}

}  // namespace
}  // namespace rdmastack::agent::transport
