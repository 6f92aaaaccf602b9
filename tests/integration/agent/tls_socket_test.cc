// The agent's TLS client (OpenSSL 3) against real servers: the gRPC C++ hub negotiates TLS 1.3;
// `openssl s_server` stands in for a hub that speaks only TLS 1.2 (accepted with an ECDHE + AEAD
// suite) or only what the agent must refuse (TLS 1.1, CBC suites, a TLS 1.3 suite it does not
// offer), for a hub that does not select ALPN h2, and for one whose CA the agent was not given.
#include "agents/node-agent/transport/tls_socket.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "tests/integration/agent/test_hub.h"

extern char** environ;

namespace rdmastack::agent::transport {
namespace {

using std::chrono::milliseconds;

int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

class TlsSocketTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(pki_.Make("tls-socket-pki")) << "openssl failed"; }
  void TearDown() override {
    StopServer();
    std::filesystem::remove_all(pki_.dir);
  }

  // `openssl s_server` with the hub's certificate and `flags`, listening on a fresh port.
  void StartServer(std::vector<std::string> flags) {
    port_ = FreePort();
    std::vector<std::string> argv = {"openssl",
                                     "s_server",
                                     "-quiet",
                                     "-accept",
                                     "127.0.0.1:" + std::to_string(port_),
                                     "-cert",
                                     (pki_.dir / "hub.pem").string(),
                                     "-key",
                                     (pki_.dir / "hub.key").string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    ASSERT_EQ(posix_spawnp(&server_, "openssl", &actions, nullptr, args.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    // Listening once a plain TCP connect succeeds.
    for (int i = 0; i < 100; ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = htons(static_cast<uint16_t>(port_));
      const bool up = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
      ::close(fd);
      if (up) return;
      std::this_thread::sleep_for(milliseconds(50));
    }
    FAIL() << "openssl s_server did not listen";
  }
  void StopServer() {
    if (server_ <= 0) return;
    ::kill(server_, SIGTERM);
    ::waitpid(server_, nullptr, 0);
    server_ = 0;
  }

  TlsClientOptions Options(int port) const {
    TlsClientOptions o;
    o.host = "127.0.0.1";
    o.port = std::to_string(port);
    o.server_name = "agenthub.test";
    o.ca_pem = pki_.ca;
    o.alpn = {"h2"};
    o.timeout = milliseconds(5000);
    return o;
  }

  testing::TestPki pki_;
  pid_t server_ = 0;
  int port_ = 0;
};

TEST_F(TlsSocketTest, TheGrpcHubNegotiatesTls13AndBytesFlow) {
  testing::FakeHub hub;
  int port = 0;
  auto server = testing::StartHub(pki_, &hub, &port);
  ASSERT_TRUE(server);
  auto socket = TlsSocket::Connect(Options(port));
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  EXPECT_EQ((*socket)->Version(), "TLSv1.3");
  // The HTTP/2 client preface goes out and the server's SETTINGS come back through TLS.
  const std::string preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  const std::string settings("\0\0\0\4\0\0\0\0\0", 9);
  const std::string out = preface + settings;
  size_t sent = 0;
  for (int i = 0; i < 100 && sent < out.size(); ++i) {
    auto n =
        (*socket)->Write(reinterpret_cast<const uint8_t*>(out.data()) + sent, out.size() - sent);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    sent += *n;
    if (*n == 0) std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_EQ(sent, out.size());
  uint8_t buf[256];
  size_t got = 0;
  for (int i = 0; i < 200 && got == 0; ++i) {
    auto n = (*socket)->Read(buf, sizeof(buf));
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    got = *n;
    if (got == 0) std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_GE(got, 9u);
  EXPECT_EQ(buf[3], 4) << "the first frame from a gRPC server is SETTINGS";
  server->Shutdown(std::chrono::system_clock::now() + milliseconds(200));
}

TEST_F(TlsSocketTest, ATls12OnlyHubWithEcdheAndAeadIsAccepted) {
  ASSERT_NO_FATAL_FAILURE(
      StartServer({"-tls1_2", "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305", "-alpn", "h2"}));
  auto socket = TlsSocket::Connect(Options(port_));
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  EXPECT_EQ((*socket)->Version(), "TLSv1.2");
}

TEST_F(TlsSocketTest, OlderProtocolsAndWeakerSuitesAreRefused) {
  const std::vector<std::vector<std::string>> servers = {
      // TLS 1.1 (the server lowers its own security level to offer it at all).
      {"-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0", "-alpn", "h2"},
      // TLS 1.2 with ECDHE but CBC, with SHA-256 and with SHA-1 MACs.
      {"-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA256", "-alpn", "h2"},
      {"-tls1_2", "-cipher", "ECDHE-ECDSA-AES256-SHA", "-alpn", "h2"},
      // TLS 1.3 with a suite the agent does not offer.
      {"-tls1_3", "-ciphersuites", "TLS_AES_128_CCM_SHA256", "-alpn", "h2"},
  };
  for (const auto& flags : servers) {
    ASSERT_NO_FATAL_FAILURE(StartServer(flags));
    auto socket = TlsSocket::Connect(Options(port_));
    EXPECT_FALSE(socket.ok()) << flags[0] << " " << flags[2] << " was accepted";
    if (!socket.ok()) {
      EXPECT_EQ(socket.status().code(), StatusCode::kUnavailable);
      EXPECT_NE(socket.status().message().find("TLS handshake with 127.0.0.1:"), std::string::npos)
          << socket.status().message();
    }
    StopServer();
  }
}

TEST_F(TlsSocketTest, AServerThatDoesNotSelectH2IsRefused) {
  // No ALPN at all: the handshake completes and the agent refuses what it got.
  ASSERT_NO_FATAL_FAILURE(StartServer({}));
  auto socket = TlsSocket::Connect(Options(port_));
  ASSERT_FALSE(socket.ok());
  EXPECT_NE(socket.status().message().find("did not negotiate ALPN 'h2'"), std::string::npos)
      << socket.status().message();
  StopServer();
  // Another protocol only: the server ends the handshake.
  ASSERT_NO_FATAL_FAILURE(StartServer({"-alpn", "http/1.1"}));
  socket = TlsSocket::Connect(Options(port_));
  ASSERT_FALSE(socket.ok());
  EXPECT_NE(socket.status().message().find("no application protocol"), std::string::npos)
      << socket.status().message();
}

TEST_F(TlsSocketTest, TheSystemTrustStoreIsNotTrusted) {
  ASSERT_NO_FATAL_FAILURE(StartServer({"-alpn", "h2"}));
  // A bundle of another CA only: the hub's chain cannot be built, whatever the system trusts.
  const std::filesystem::path other = pki_.dir / "other";
  std::filesystem::create_directories(other);
  ASSERT_EQ(std::system(("cd " + other.string() +
                         " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1"
                         " -nodes -keyout ca.key -out ca.pem -days 1 -subj /CN=other-ca"
                         " >/dev/null 2>&1")
                            .c_str()),
            0);
  TlsClientOptions o = Options(port_);
  std::ifstream in(other / "ca.pem");
  o.ca_pem.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  // OpenSSL's default trust store, were it loaded, would now hold the hub's CA.
  ::setenv("SSL_CERT_FILE", (pki_.dir / "ca.pem").c_str(), 1);
  ::setenv("SSL_CERT_DIR", pki_.dir.c_str(), 1);
  auto socket = TlsSocket::Connect(o);
  ::unsetenv("SSL_CERT_FILE");
  ::unsetenv("SSL_CERT_DIR");
  ASSERT_FALSE(socket.ok());
  EXPECT_NE(socket.status().message().find(
                "certificate of 'agenthub.test' rejected: unable to get local issuer certificate"),
            std::string::npos)
      << socket.status().message();
}

TEST_F(TlsSocketTest, AnAbortDuringTheHandshakeEndsItPromptly) {
  // A listener that accepts and never answers: the handshake waits for the server's hello.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  TlsClientOptions o = Options(ntohs(addr.sin_port));
  o.timeout = milliseconds(800);
  const auto start = std::chrono::steady_clock::now();
  auto socket = TlsSocket::Connect(o);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(socket.ok());
  EXPECT_NE(socket.status().message().find("timed out"), std::string::npos)
      << socket.status().message();
  EXPECT_GE(took, milliseconds(700));
  EXPECT_LT(took, milliseconds(3000));

  std::atomic<bool> abort{false};
  o.timeout = milliseconds(10000);
  o.abort = &abort;
  std::thread stopper([&] {
    std::this_thread::sleep_for(milliseconds(300));
    abort = true;
  });
  const auto start2 = std::chrono::steady_clock::now();
  socket = TlsSocket::Connect(o);
  stopper.join();
  ASSERT_FALSE(socket.ok());
  EXPECT_NE(socket.status().message().find("cancelled"), std::string::npos)
      << socket.status().message();
  EXPECT_LT(std::chrono::steady_clock::now() - start2, milliseconds(2000));
  ::close(fd);
}

}  // namespace
}  // namespace rdmastack::agent::transport
