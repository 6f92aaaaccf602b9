#pragma once
// A local HTTPS server for transport and client unit tests. It serves 127.0.0.1 with the test PKI
// in tests/fixtures/kubeconfigs/pki and hands each request to a handler that writes raw response
// bytes, so tests can send chunked streams, stalls and malformed data exactly.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace rdmastack::k8s::testing {

// Directory of the test kubeconfigs and PKI.
std::string FixturesDir();
std::string ReadFixture(const std::string& relative);

struct RecordedRequest {
  std::string method;
  std::string target;
  std::string body;
  std::string content_type;
  std::string authorization;
  std::string user_agent;
  std::string client_cert_cn;  // CN of the client certificate, if one was presented
  int connection = 0;          // 1-based index of the TCP connection it arrived on
};

class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;
  // Raw bytes onto the connection. Returns false once the client has gone.
  virtual bool Write(std::string_view bytes) = 0;
  // Blocks until the server is stopped (to leave a response hanging).
  virtual void Stall() = 0;
  // Close the connection after this response instead of keeping it alive.
  virtual void CloseAfter() = 0;
};

// Helpers that build raw responses.
std::string JsonResponse(int status, std::string_view body, std::string_view extra_headers = "");
std::string ChunkedHeader(int status = 200);
std::string Chunk(std::string_view data);
std::string LastChunk();

class HttpsTestServer {
 public:
  using Handler = std::function<void(const RecordedRequest&, ResponseWriter&)>;
  explicit HttpsTestServer(Handler handler);
  ~HttpsTestServer();
  HttpsTestServer(const HttpsTestServer&) = delete;
  HttpsTestServer& operator=(const HttpsTestServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_); }
  int connections() const { return connections_.load(); }
  std::vector<RecordedRequest> requests() const;
  void Stop();

 private:
  struct Impl;
  void AcceptLoop();
  void Serve(int connection_index, void* socket);

  Handler handler_;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  std::condition_variable stopped_cv_;
  std::vector<RecordedRequest> requests_;
  std::thread accept_thread_;
  std::vector<std::thread> connection_threads_;
  std::vector<int> open_fds_;  // shut down on Stop() to wake blocked reads
};

}  // namespace rdmastack::k8s::testing
