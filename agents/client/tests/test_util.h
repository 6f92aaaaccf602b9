#pragma once
// Helpers for the client data plane's tests: temporary directories, files, the node fixtures and
// a loopback S3 health server.

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "tests/harness/cluster_env.h"

namespace rdmastack::client::testing {

namespace fs = std::filesystem;

// A fresh directory per test, removed at the end.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() / ("rdmastack-client-" + std::to_string(::getpid()) + "-" +
                                         info->test_suite_name() + "." + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return (path_ / rel).string(); }

 private:
  fs::path path_;
};

inline std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const fs::path& p, const std::string& content) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
}

inline std::string NodeFixture(const std::string& name) {
  return ::rdmastack::testing::SourcePath("tests/fixtures/nodes/" + name);
}

inline std::string FakeClientLibrary() {
  return ::rdmastack::testing::BinaryDir() +
         "/tests/fixtures/gateway/elf/lib-client-v1/libcuobjclient.so.1.2.0.68";
}

// The endpoints file the operator writes, for one loopback gateway.
inline std::string EndpointsJson(int port, const std::string& address = "127.0.0.1") {
  return R"({"pool":"ml/kvcache","region":"us-east-1","scheme":"http","endpoints":[)"
         R"({"node":"stg-node-0","address":")" +
         address + R"(","s3Port":)" + std::to_string(port) + R"(,"libraryVersion":"1.2.0.68"}]})";
}

// A loopback gateway's health endpoint: GET /_/health answers 200, anything else 404.
// Stop() (or the destructor) closes the port, so connections are refused from then on.
class HealthServer {
 public:
  HealthServer() : acceptor_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { Serve(); });
  }
  ~HealthServer() { Stop(); }
  void Stop() {
    if (stopped_.exchange(true)) return;
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);  // ends a blocked accept()
    thread_.join();
    boost::system::error_code ec;
    acceptor_.close(ec);
  }
  int port() const { return port_; }
  int health_requests() const { return health_requests_; }

 private:
  void Serve() {
    while (!stopped_) {
      boost::asio::ip::tcp::socket peer(io_);
      boost::system::error_code ec;
      acceptor_.accept(peer, ec);
      if (ec || stopped_) return;
      std::string request;
      char buf[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        const size_t n = peer.read_some(boost::asio::buffer(buf), ec);
        if (ec) break;
        request.append(buf, n);
      }
      const bool health = request.rfind("GET /_/health ", 0) == 0;
      if (health) ++health_requests_;
      const std::string reply = std::string("HTTP/1.1 ") + (health ? "200 OK" : "404 Not Found") +
                                "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      boost::asio::write(peer, boost::asio::buffer(reply), ec);
    }
  }

  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  int port_ = 0;
  std::atomic<bool> stopped_{false};
  std::atomic<int> health_requests_{0};
  std::thread thread_;
};

}  // namespace rdmastack::client::testing
