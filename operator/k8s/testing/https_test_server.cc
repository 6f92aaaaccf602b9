#include "operator/k8s/testing/https_test_server.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace rdmastack::k8s::testing {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

std::string ClientCn(SSL* ssl_handle) {
  X509* cert = SSL_get1_peer_certificate(ssl_handle);
  if (cert == nullptr) return {};
  char cn[256] = {0};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof cn);
  X509_free(cert);
  return cn;
}

}  // namespace

std::string FixturesDir() {
  const char* src = std::getenv("RDMASTACK_SOURCE_DIR");
  std::string root = src != nullptr ? src : RDMASTACK_K8S_SOURCE_DIR;
  return root + "/tests/fixtures/kubeconfigs";
}

std::string ReadFixture(const std::string& relative) {
  std::ifstream in(FixturesDir() + "/" + relative, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string JsonResponse(int status, std::string_view body, std::string_view extra_headers) {
  std::string out =
      "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: application/json\r\n";
  out += extra_headers;
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out += body;
  return out;
}

std::string ChunkedHeader(int status) {
  return "HTTP/1.1 " + std::to_string(status) +
         " X\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
}

std::string Chunk(std::string_view data) {
  std::ostringstream out;
  out << std::hex << data.size() << "\r\n" << data << "\r\n";
  return out.str();
}

std::string LastChunk() {
  return "0\r\n\r\n";
}

struct HttpsTestServer::Impl {
  Impl() : ssl_ctx(ssl::context::tls_server), acceptor(ioc) {}
  asio::io_context ioc;
  ssl::context ssl_ctx;
  tcp::acceptor acceptor;
};

namespace {

class Writer final : public ResponseWriter {
 public:
  Writer(beast::ssl_stream<tcp::socket>& stream, std::atomic<bool>& stopping, std::mutex& mu,
         std::condition_variable& cv)
      : stream_(stream), stopping_(stopping), mu_(mu), cv_(cv) {}
  bool Write(std::string_view bytes) override {
    beast::error_code ec;
    asio::write(stream_, asio::buffer(bytes.data(), bytes.size()), ec);
    return !ec;
  }
  void Stall() override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return stopping_.load(); });
  }
  void CloseAfter() override { close_ = true; }
  bool close() const { return close_; }

 private:
  beast::ssl_stream<tcp::socket>& stream_;
  std::atomic<bool>& stopping_;
  std::mutex& mu_;
  std::condition_variable& cv_;
  bool close_ = false;
};

}  // namespace

HttpsTestServer::HttpsTestServer(Handler handler)
    : handler_(std::move(handler)), impl_(std::make_unique<Impl>()) {
  const std::string cert = ReadFixture("pki/server.pem");
  const std::string key = ReadFixture("pki/server-key.pem");
  const std::string ca = ReadFixture("pki/ca.pem");
  impl_->ssl_ctx.use_certificate_chain(asio::buffer(cert));
  impl_->ssl_ctx.use_private_key(asio::buffer(key), ssl::context::pem);
  impl_->ssl_ctx.add_certificate_authority(asio::buffer(ca));
  // Ask for a client certificate but do not insist: token-only clients connect too.
  impl_->ssl_ctx.set_verify_mode(ssl::verify_peer);
  tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
  impl_->acceptor.open(endpoint.protocol());
  impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  impl_->acceptor.bind(endpoint);
  impl_->acceptor.listen();
  port_ = impl_->acceptor.local_endpoint().port();
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

HttpsTestServer::~HttpsTestServer() {
  Stop();
}

void HttpsTestServer::Stop() {
  if (stopping_.exchange(true)) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_cv_.notify_all();
  }
  // Wake the blocking accept with a throwaway connection.
  {
    asio::io_context ioc;
    tcp::socket poke(ioc);
    beast::error_code ec;
    poke.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<uint16_t>(port_)),
                 ec);
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    threads.swap(connection_threads_);
  }
  for (auto& t : threads) t.join();
}

std::vector<RecordedRequest> HttpsTestServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

void HttpsTestServer::AcceptLoop() {
  while (!stopping_.load()) {
    auto socket = std::make_shared<tcp::socket>(impl_->ioc);
    beast::error_code ec;
    impl_->acceptor.accept(*socket, ec);
    if (ec || stopping_.load()) return;
    const int index = ++connections_;
    std::lock_guard<std::mutex> lock(mu_);
    connection_threads_.emplace_back([this, index, socket] { Serve(index, socket.get()); });
  }
}

void HttpsTestServer::Serve(int connection_index, void* raw_socket) {
  auto& socket = *static_cast<tcp::socket*>(raw_socket);
  beast::ssl_stream<tcp::socket> stream(std::move(socket), impl_->ssl_ctx);
  const int fd = stream.next_layer().native_handle();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_.load()) return;
    open_fds_.push_back(fd);
  }
  struct Untrack {
    HttpsTestServer* self;
    int fd;
    ~Untrack() {
      std::lock_guard<std::mutex> lock(self->mu_);
      self->open_fds_.erase(std::remove(self->open_fds_.begin(), self->open_fds_.end(), fd),
                            self->open_fds_.end());
    }
  } untrack{this, fd};
  beast::error_code ec;
  stream.handshake(ssl::stream_base::server, ec);
  if (ec) return;  // e.g. the client rejected our certificate
  const std::string cn = ClientCn(stream.native_handle());
  beast::flat_buffer buffer;
  while (!stopping_.load()) {
    http::request<http::string_body> req;
    http::read(stream, buffer, req, ec);
    if (ec) return;
    RecordedRequest recorded{std::string(req.method_string()),
                             std::string(req.target()),
                             req.body(),
                             std::string(req[http::field::content_type]),
                             std::string(req[http::field::authorization]),
                             std::string(req[http::field::user_agent]),
                             cn,
                             connection_index};
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(recorded);
    }
    Writer writer(stream, stopping_, mu_, stopped_cv_);
    handler_(recorded, writer);
    if (writer.close()) break;
  }
  stream.next_layer().shutdown(tcp::socket::shutdown_both, ec);
}

}  // namespace rdmastack::k8s::testing
