// The agent's own gRPC client (nghttp2 + OpenSSL 3) against a real gRPC C++ server: status codes,
// half-close, cancellation, flow control with large messages, and certificate name checks.
#include "agents/node-agent/transport/grpc_stream.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "agents/proto/agenthub.grpc.pb.h"
#include "tests/integration/agent/test_hub.h"

namespace rdmastack::agent::transport {
namespace {

namespace pb = ::rdmastack::agent::v1;
using std::chrono::milliseconds;
using testing::Count;
using testing::FakeHub;
using testing::TestPki;

class GrpcStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pki_.Make("grpc-stream-pki")) << "openssl failed";
    server_ = testing::StartHub(pki_, &hub_, &port_);
    ASSERT_TRUE(server_);
  }
  void TearDown() override {
    server_->Shutdown(std::chrono::system_clock::now() + milliseconds(200));
    std::filesystem::remove_all(pki_.dir);
  }

  GrpcStreamOptions Options() const {
    GrpcStreamOptions o;
    o.address = "127.0.0.1:" + std::to_string(port_);  // verified against the IP SAN
    o.ca_pem = pki_.ca;
    o.method_path = "/rdmastack.agent.v1.AgentHub/Connect";
    o.user_agent = "grpc-stream-test";
    o.connect_timeout = milliseconds(5000);
    return o;
  }

  static std::string Hello(const std::string& token) {
    pb::AgentMessage m;
    m.mutable_hello()->set_node_name("gpu-node-3");
    m.mutable_hello()->set_token(token);
    return m.SerializeAsString();
  }

  // Opens a call with the default options and sends Hello with `token`.
  void OpenAndSayHello(const std::string& token, std::unique_ptr<GrpcBidiStream>* out) {
    auto stream = GrpcBidiStream::Open(Options());
    ASSERT_TRUE(stream.ok()) << stream.status().ToString();
    ASSERT_TRUE((*stream)->Write(Hello(token)));
    *out = std::move(*stream);
  }

  TestPki pki_;
  FakeHub hub_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(GrpcStreamTest, ServerStatusCodeAndMessageReachTheAgent) {
  std::unique_ptr<GrpcBidiStream> stream;
  ASSERT_NO_FATAL_FAILURE(OpenAndSayHello("wrong-token", &stream));
  std::string msg;
  EXPECT_FALSE(stream->Read(&msg));
  Status st = stream->Finish();
  EXPECT_EQ(st.code(), StatusCode::kUnauthenticated) << st.ToString();
  EXPECT_NE(st.message().find("UNAUTHENTICATED: bad token"), std::string::npos) << st.message();
  EXPECT_FALSE(stream->Write(Hello("again")));  // the call is over
}

TEST_F(GrpcStreamTest, HalfCloseEndsTheCallWithOkAfterTheHubsMessages) {
  std::unique_ptr<GrpcBidiStream> stream;
  ASSERT_NO_FATAL_FAILURE(OpenAndSayHello("test-token-123", &stream));
  std::string bytes;
  ASSERT_TRUE(stream->Read(&bytes));
  pb::HubMessage ack;
  ASSERT_TRUE(ack.ParseFromString(bytes));
  EXPECT_EQ(ack.ack().heartbeat_seconds(), 1);
  stream->WritesDone();
  EXPECT_FALSE(stream->Read(&bytes));
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_EQ(Count(hub_.Log(), pb::AgentMessage::kHello), 1);
}

TEST_F(GrpcStreamTest, LargeMessagesCrossHttp2FlowControlBothWays) {
  std::unique_ptr<GrpcBidiStream> stream;
  ASSERT_NO_FATAL_FAILURE(OpenAndSayHello("test-token-123", &stream));
  // 2 MiB up: thirty-two times the initial HTTP/2 window, so it moves only as the hub's
  // WINDOW_UPDATEs arrive.
  pb::AgentMessage big;
  for (int i = 0; i < 512; ++i) {
    auto* c = big.mutable_report()->add_checks();
    c->set_id("check-" + std::to_string(i));
    c->set_message(std::string(4096, static_cast<char>('a' + i % 26)));
  }
  ASSERT_TRUE(stream->Write(big.SerializeAsString()));
  ASSERT_TRUE(hub_.WaitFor([](auto& log) { return Count(log, pb::AgentMessage::kReport) == 1; },
                           milliseconds(10000)));
  const pb::AgentMessage got = hub_.Log().back();
  ASSERT_EQ(got.report().checks_size(), 512);
  EXPECT_EQ(got.report().checks(511).message(), big.report().checks(511).message());

  // And down: 1 MiB of requirements after the Ack.
  pb::HubMessage reqs;
  for (int i = 0; i < 256; ++i) {
    auto* c = reqs.mutable_requirements()->add_clients();
    c->set_profile(std::string(4096, static_cast<char>('A' + i % 26)) + std::to_string(i));
  }
  hub_.Send(reqs);
  std::string bytes;
  pb::HubMessage m;
  ASSERT_TRUE(stream->Read(&bytes));  // Ack
  ASSERT_TRUE(stream->Read(&bytes));
  ASSERT_TRUE(m.ParseFromString(bytes));
  ASSERT_EQ(m.requirements().clients_size(), 256);
  EXPECT_EQ(m.requirements().clients(255).profile(), reqs.requirements().clients(255).profile());
  stream->WritesDone();
  EXPECT_FALSE(stream->Read(&bytes));
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(GrpcStreamTest, CancelFromAnotherThreadUnblocksTheReader) {
  std::unique_ptr<GrpcBidiStream> stream;
  ASSERT_NO_FATAL_FAILURE(OpenAndSayHello("test-token-123", &stream));
  std::thread reader([&] {
    std::string bytes;
    while (stream->Read(&bytes)) {
    }
  });
  ASSERT_TRUE(hub_.WaitFor([](auto& log) { return !log.empty(); }, milliseconds(5000)));
  stream->Cancel();
  reader.join();
  EXPECT_EQ(stream->Finish().code(), StatusCode::kCancelled);
}

TEST_F(GrpcStreamTest, CertificateForAnotherNameIsRefused) {
  GrpcStreamOptions o = Options();
  o.server_name = "not-the-hub.test";
  auto stream = GrpcBidiStream::Open(o);
  ASSERT_FALSE(stream.ok());
  EXPECT_EQ(stream.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(stream.status().message().find("'not-the-hub.test'"), std::string::npos)
      << stream.status().message();
  // The error says what the certificate does name.
  EXPECT_NE(stream.status().message().find("hostname mismatch"), std::string::npos)
      << stream.status().message();
  EXPECT_NE(stream.status().message().find("DNS:agenthub.test"), std::string::npos)
      << stream.status().message();

  o.server_name = "127.0.0.2";  // an IP literal that is not in the certificate's IP SANs
  stream = GrpcBidiStream::Open(o);
  ASSERT_FALSE(stream.ok());
  EXPECT_NE(stream.status().message().find("'127.0.0.2'"), std::string::npos)
      << stream.status().message();
  EXPECT_NE(stream.status().message().find("IP address mismatch"), std::string::npos)
      << stream.status().message();
  EXPECT_TRUE(hub_.Log().empty());
}

TEST_F(GrpcStreamTest, DnsNameFromTheCertificateIsAccepted) {
  GrpcStreamOptions o = Options();
  o.server_name = "agenthub.test";
  auto stream = GrpcBidiStream::Open(o);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  ASSERT_TRUE((*stream)->Write(Hello("test-token-123")));
  std::string bytes;
  EXPECT_TRUE((*stream)->Read(&bytes));
}

TEST_F(GrpcStreamTest, AddressWithoutPortIsAClearError) {
  GrpcStreamOptions o = Options();
  o.address = "agenthub.test";
  auto stream = GrpcBidiStream::Open(o);
  ASSERT_FALSE(stream.ok());
  EXPECT_EQ(stream.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(stream.status().message().find("no port"), std::string::npos);
}

TEST_F(GrpcStreamTest, NobodyListeningIsUnavailableNamingTheEndpoint) {
  GrpcStreamOptions o = Options();
  o.address = "127.0.0.1:1";
  auto stream = GrpcBidiStream::Open(o);
  ASSERT_FALSE(stream.ok());
  EXPECT_EQ(stream.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(stream.status().message().find("connect 127.0.0.1:1: Connection refused"),
            std::string::npos)
      << stream.status().message();
}

}  // namespace
}  // namespace rdmastack::agent::transport
