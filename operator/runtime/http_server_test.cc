#include "operator/runtime/http_server.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "operator/runtime/connection_limiter.h"
#include "operator/runtime/serving_cert.h"
#include "operator/runtime/testing/silent_peers.h"

namespace rdmastack::runtime {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

struct Reply {
  int status = 0;
  std::string content_type;
  std::string body;
};

Reply Fetch(uint16_t port, const std::string& target, http::verb verb = http::verb::get) {
  boost::asio::io_context io;
  beast::tcp_stream stream(io);
  stream.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  http::request<http::empty_body> req(verb, target, 11);
  req.set(http::field::host, "127.0.0.1");
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  return {static_cast<int>(res.result_int()), std::string(res[http::field::content_type]),
          res.body()};
}

// One client connection to 127.0.0.1, plain or TLS, kept open across requests (keep-alive). TLS
// does not verify the server: the tests look at the certificate it presented instead.
class Connection {
 public:
  Status Connect(uint16_t port, bool tls) {
    const asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
    beast::error_code ec;
    if (!tls) {
      plain_.emplace(io_);
      plain_->connect(endpoint, ec);
    } else {
      tls_context_.set_verify_mode(asio::ssl::verify_none);
      tls_.emplace(io_, tls_context_);
      beast::get_lowest_layer(*tls_).connect(endpoint, ec);
      if (!ec) tls_->handshake(asio::ssl::stream_base::client, ec);
    }
    if (ec) return UnavailableError("connect: " + ec.message());
    return OkStatus();
  }

  // Sends one request and reads the answer; an error when the server closed the connection.
  StatusOr<http::response<http::string_body>> Send(http::request<http::string_body> request) {
    request.set(http::field::host, "localhost");
    request.prepare_payload();
    return tls_ ? RoundTrip(*tls_, request) : RoundTrip(*plain_, request);
  }

  StatusOr<http::response<http::string_body>> Post(const std::string& target,
                                                   const std::string& content_type,
                                                   const std::string& body) {
    http::request<http::string_body> request(http::verb::post, target, 11);
    request.set(http::field::content_type, content_type);
    request.body() = body;
    return Send(std::move(request));
  }

  // The DER bytes of the certificate the server presented; "" without TLS.
  std::string PeerCertificateDer() {
    if (!tls_) return "";
    X509* cert = SSL_get1_peer_certificate(tls_->native_handle());
    std::string der = Der(cert);
    X509_free(cert);
    return der;
  }

  static std::string Der(X509* cert) {
    if (cert == nullptr) return "";
    unsigned char* out = nullptr;
    const int size = i2d_X509(cert, &out);
    if (size <= 0) return "";
    std::string der(reinterpret_cast<char*>(out), static_cast<size_t>(size));
    OPENSSL_free(out);
    return der;
  }

 private:
  template <typename Stream>
  StatusOr<http::response<http::string_body>> RoundTrip(
      Stream& stream, const http::request<http::string_body>& request) {
    beast::error_code ec;
    http::write(stream, request, ec);
    http::response<http::string_body> response;
    if (!ec) http::read(stream, buffer_, response, ec);
    if (ec) return UnavailableError(std::string(request.target()) + ": " + ec.message());
    return response;
  }

  asio::io_context io_;
  asio::ssl::context tls_context_{asio::ssl::context::tls_client};
  std::optional<beast::tcp_stream> plain_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls_;
  beast::flat_buffer buffer_;
};

std::string CertificateDer(const std::string& cert_pem) {
  BIO* bio = BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  std::string der = Connection::Der(cert);
  X509_free(cert);
  return der;
}

TEST(ParseBindAddressTest, Table) {
  struct Case {
    std::string in;
    bool ok;
    std::string host;
    uint16_t port;
  };
  const Case cases[] = {
      {":8080", true, "0.0.0.0", 8080},  {"127.0.0.1:0", true, "127.0.0.1", 0},
      {"[::1]:9443", true, "::1", 9443}, {"8080", false, "", 0},
      {"host:99999", false, "", 0},      {"127.0.0.1:", false, "", 0},
      {"127.0.0.1:80x", false, "", 0},
  };
  for (const Case& c : cases) {
    auto got = ParseBindAddress(c.in);
    ASSERT_EQ(got.ok(), c.ok) << c.in;
    if (!c.ok) continue;
    EXPECT_EQ(got->host, c.host) << c.in;
    EXPECT_EQ(got->port, c.port) << c.in;
  }
}

TEST(HttpServerTest, ServesRegisteredPathsOverTcp) {
  HttpServer server;
  int calls = 0;
  server.Handle("/healthz", [&](const HttpRequest&) {
    return HttpResponse{200, "text/plain", "ok\n"};
  });
  server.Handle("/readyz", [&](const HttpRequest&) {
    ++calls;
    return HttpResponse{503, "text/plain", "caches not synced\n"};
  });
  ASSERT_TRUE(server.Start("127.0.0.1:0").ok());
  ASSERT_NE(server.port(), 0);

  EXPECT_EQ(Fetch(server.port(), "/healthz").body, "ok\n");
  const Reply ready = Fetch(server.port(), "/readyz?verbose");
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(ready.body, "caches not synced\n");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(Fetch(server.port(), "/nope").status, 404);
  EXPECT_EQ(Fetch(server.port(), "/healthz", http::verb::post).status, 405);
  server.Stop();
  server.Stop();  // idempotent
}

TEST(HttpServerTest, PostHandlerGetsBodyAndContentType) {
  HttpServer server;
  std::atomic<int> calls = 0;
  HttpRequest seen;
  server.HandlePost("/validate", [&](const HttpRequest& request) {
    ++calls;
    seen = request;
    return HttpResponse{200, "application/json", "{\"allowed\":true}"};
  });
  server.Handle("/healthz", [](const HttpRequest&) {
    return HttpResponse{200, "text/plain", "ok\n"};
  });
  ASSERT_TRUE(server.Start("127.0.0.1:0").ok());

  Connection c;
  ASSERT_TRUE(c.Connect(server.port(), /*tls=*/false).ok());
  auto reply =
      c.Post("/validate?timeout=10s", "application/json", "{\"kind\":\"AdmissionReview\"}");
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->result_int(), 200u);
  EXPECT_EQ((*reply)[http::field::content_type], "application/json");
  EXPECT_EQ(reply->body(), "{\"allowed\":true}");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.path, "/validate");
  EXPECT_EQ(seen.content_type, "application/json");
  EXPECT_EQ(seen.body, "{\"kind\":\"AdmissionReview\"}");

  // Methods are per path: GET (or PUT) to the POST path, POST to the GET path.
  EXPECT_EQ(Fetch(server.port(), "/validate").status, 405);
  EXPECT_EQ(Fetch(server.port(), "/validate", http::verb::put).status, 405);
  EXPECT_EQ(Fetch(server.port(), "/healthz", http::verb::post).status, 405);
  EXPECT_EQ(Fetch(server.port(), "/healthz").status, 200);
  EXPECT_EQ(calls, 1);

  // A request without a body or a Content-Type reaches the handler with both empty.
  auto empty = c.Send(http::request<http::string_body>(http::verb::post, "/validate", 11));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(seen.body, "");
  EXPECT_EQ(seen.content_type, "");
}

TEST(HttpServerTest, BodyOverTheLimitIsRefusedAndTheServerKeepsServing) {
  auto creds = SelfSignedServingCredentials({"localhost"});
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "https" : "http");
    HttpServer server;
    std::atomic<int> calls = 0;
    server.HandlePost("/validate", [&](const HttpRequest& request) {
      ++calls;
      return HttpResponse{200, "text/plain", std::to_string(request.body.size())};
    });
    HttpServerOptions options;  // the default limit: 4096
    if (tls) options.tls = *creds;
    ASSERT_TRUE(server.Start("127.0.0.1:0", options).ok());

    // Declared with Content-Length (refused on the header) and sent in chunks (refused on the
    // chunk that crosses the limit).
    for (const bool chunked : {false, true}) {
      SCOPED_TRACE(chunked ? "chunked" : "content-length");
      Connection c;
      ASSERT_TRUE(c.Connect(server.port(), tls).ok());
      http::request<http::string_body> request(http::verb::post, "/validate", 11);
      request.body() = std::string(4097, 'x');
      request.chunked(chunked);
      auto refused = c.Send(std::move(request));
      ASSERT_TRUE(refused.ok()) << refused.status().ToString();
      EXPECT_EQ(refused->result_int(), 413u);
      EXPECT_FALSE(refused->keep_alive());
      // The connection is closed: the rest of that body would be read as the next request.
      EXPECT_FALSE(c.Post("/validate", "text/plain", "x").ok());
    }
    EXPECT_EQ(calls, 0);

    // New connections are served, up to exactly the limit.
    Connection c;
    ASSERT_TRUE(c.Connect(server.port(), tls).ok());
    auto at_limit = c.Post("/validate", "text/plain", std::string(4096, 'x'));
    ASSERT_TRUE(at_limit.ok()) << at_limit.status().ToString();
    EXPECT_EQ(at_limit->result_int(), 200u);
    EXPECT_EQ(at_limit->body(), "4096");
    EXPECT_EQ(calls, 1);
  }
}

TEST(HttpServerTest, MaxRequestBodyRaisesTheLimit) {
  HttpServer server;
  server.HandlePost("/validate", [](const HttpRequest& request) {
    return HttpResponse{200, "text/plain", std::to_string(request.body.size())};
  });
  ASSERT_TRUE(server.Start("127.0.0.1:0", {.max_request_body = 3 << 20}).ok());
  Connection c;
  ASSERT_TRUE(c.Connect(server.port(), /*tls=*/false).ok());
  auto big = c.Post("/validate", "application/json", std::string(3 << 20, 'x'));
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  EXPECT_EQ(big->body(), std::to_string(3 << 20));
  auto over = c.Post("/validate", "application/json", std::string((3 << 20) + 1, 'x'));
  ASSERT_TRUE(over.ok()) << over.status().ToString();
  EXPECT_EQ(over->result_int(), 413u);
}

using testing::SilentPeers;

// The kubelet's probes against one pod that opens connections and sends nothing: the default
// limits give that pod's address its share (8), so a probe from another address is answered at
// once, and what the pod opens beyond its share is closed as soon as it is accepted. Before the
// per-address limit, 64 silent connections held every slot and the probe was refused.
TEST(HttpServerTest, SilentConnectionsFromOneAddressLeaveTheProbesTheirSlots) {
  HttpServer server;
  server.Handle("/healthz", [](const HttpRequest&) {
    return HttpResponse{200, "text/plain", "ok\n"};
  });
  ASSERT_TRUE(server.Start("127.0.0.1:0").ok());
  SilentPeers pod("127.0.0.2", server.port(), 100);
  const int closed_at_once = pod.ClosedCount(std::chrono::milliseconds(500));
  EXPECT_GE(closed_at_once, 100 - 8) << "over the address's share: closed at once";
  EXPECT_LT(closed_at_once, 100) << "its share is served (until the header deadline)";
  for (int probe = 0; probe < 3; ++probe) {
    const auto start = std::chrono::steady_clock::now();
    Connection kubelet;
    ASSERT_TRUE(kubelet.Connect(server.port(), /*tls=*/false).ok());
    auto reply = kubelet.Send(http::request<http::string_body>(http::verb::get, "/healthz", 11));
    ASSERT_TRUE(reply.ok()) << "probe " << probe << ": " << reply.status().ToString();
    EXPECT_EQ(reply->result_int(), 200u);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  }
}

// A peer that never starts its TLS handshake, one that never sends a byte, and one that sends a
// head a byte at a time are all closed at the header deadline, long before the idle deadline; a
// kept-alive connection between two requests is held to the idle deadline instead.
TEST(HttpServerTest, TheHeaderDeadlineClosesSilentAndSlowHeadsTheIdleOneKeptAliveConnections) {
  auto creds = SelfSignedServingCredentials({"localhost"});
  ASSERT_TRUE(creds.ok());
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "https" : "http");
    MetricsRegistry registry;
    HttpServer server;
    server.Handle("/healthz", [](const HttpRequest&) {
      return HttpResponse{200, "text/plain", "ok\n"};
    });
    HttpServerOptions options;
    if (tls) options.tls = *creds;
    options.listener = "test";
    options.metrics = &registry;
    options.deadlines = {.header = std::chrono::milliseconds(400),
                         .idle = std::chrono::milliseconds(2000)};
    ASSERT_TRUE(server.Start("127.0.0.1:0", options).ok());

    Connection kept;
    ASSERT_TRUE(kept.Connect(server.port(), tls).ok());
    ASSERT_TRUE(kept.Send(http::request<http::string_body>(http::verb::get, "/healthz", 11)).ok());
    SilentPeers peers("127.0.0.2", server.port(), 2);
    const auto start = std::chrono::steady_clock::now();
    // Peer 1 trickles a head (plain HTTP; with TLS these bytes are a broken handshake).
    const std::string head = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
    bool trickler_closed = false;
    for (size_t i = 0; i < head.size() && !trickler_closed; ++i) {
      peers.Send(1, head.substr(i, 1));
      trickler_closed = peers.Closed(1, std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(trickler_closed || peers.Closed(1, std::chrono::milliseconds(1000)));
    EXPECT_TRUE(peers.Closed(0, std::chrono::milliseconds(1000)));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1500));
    if (!tls) {
      // The stream's timer closes the socket before the read's handler runs and counts, so a
      // peer can see its close a moment before the counter moves.
      const std::string counted = "rdmastack_listener_header_timeouts_total{listener=\"test\"} 2";
      const auto counted_by = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (registry.Render().find(counted) == std::string::npos &&
             std::chrono::steady_clock::now() < counted_by) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      EXPECT_NE(registry.Render().find(counted), std::string::npos) << registry.Render();
    }
    // Idle past the header deadline, within the idle one: still served.
    auto again = kept.Send(http::request<http::string_body>(http::verb::get, "/healthz", 11));
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ(again->result_int(), 200u);
    // Past the idle deadline: closed.
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    EXPECT_FALSE(kept.Send(http::request<http::string_body>(http::verb::get, "/healthz", 11)).ok());
  }
}

TEST(HttpServerTest, ConnectionsOverEitherLimitAreClosedAtOnceAndCounted) {
  // Peers that connect and never start their TLS handshake hold their slots; one more from the
  // same address, or any once the total is reached, is closed without being served until one of
  // them goes.
  auto creds = SelfSignedServingCredentials({"localhost"});
  ASSERT_TRUE(creds.ok());
  MetricsRegistry registry;
  HttpServer server;
  server.Handle("/ok", [](const HttpRequest&) { return HttpResponse{200, "text/plain", "ok"}; });
  HttpServerOptions options;
  options.tls = *creds;
  options.listener = "test";
  options.metrics = &registry;
  options.connections = {.max_connections = 4, .max_connections_per_address = 2};
  ASSERT_TRUE(server.Start("127.0.0.1:0", options).ok());
  auto refused = [&](const std::string& reason) {
    const std::string text = registry.Render();
    const std::string series =
        "rdmastack_listener_connections_refused_total{listener=\"test\","
        "reason=\"" +
        reason + "\"} ";
    const size_t at = text.find(series);
    return at == std::string::npos ? 0 : std::atoi(text.c_str() + at + series.size());
  };
  SilentPeers a("127.0.0.2", server.port(), 3);
  EXPECT_TRUE(a.Closed(2, std::chrono::milliseconds(1000))) << "a third from one address";
  EXPECT_FALSE(a.Closed(0, std::chrono::milliseconds(0)));
  EXPECT_EQ(refused(kRefusedMaxConnectionsPerAddress), 1) << registry.Render();
  std::optional<SilentPeers> b;
  b.emplace("127.0.0.3", server.port(), 2);
  EXPECT_FALSE(b->Closed(1, std::chrono::milliseconds(200)));
  auto served = [&] {
    Connection c;
    if (!c.Connect(server.port(), /*tls=*/true).ok()) return false;
    auto reply = c.Send(http::request<http::string_body>(http::verb::get, "/ok", 11));
    return reply.ok() && reply->result_int() == 200;
  };
  EXPECT_FALSE(served()) << "four open: the total";
  EXPECT_EQ(refused(kRefusedMaxConnections), 1) << registry.Render();
  b.reset();
  bool ok = false;
  for (int i = 0; i < 100 && !ok; ++i) {
    ok = served();
    if (!ok) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(ok) << "a freed slot serves the next peer";
}

TEST(HttpServerTest, UpdateTlsServesNewHandshakesWithTheNewCertificate) {
  auto a = SelfSignedServingCredentials({"localhost", "a.example"});
  auto b = SelfSignedServingCredentials({"localhost", "b.example"});
  ASSERT_TRUE(a.ok() && b.ok());
  const std::string a_der = CertificateDer(a->cert_pem);
  const std::string b_der = CertificateDer(b->cert_pem);
  ASSERT_FALSE(a_der.empty());
  ASSERT_NE(a_der, b_der);

  HttpServer server;
  server.HandlePost("/validate", [](const HttpRequest& request) {
    return HttpResponse{200, "text/plain", "got " + request.body};
  });
  ASSERT_TRUE(server.Start("127.0.0.1:0", {.tls = *a}).ok());

  Connection before;
  ASSERT_TRUE(before.Connect(server.port(), /*tls=*/true).ok());
  EXPECT_EQ(before.PeerCertificateDer(), a_der);
  auto first = before.Post("/validate", "text/plain", "1");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->body(), "got 1");

  const Status updated = server.UpdateTls(*b);
  ASSERT_TRUE(updated.ok()) << updated.ToString();

  Connection after;
  ASSERT_TRUE(after.Connect(server.port(), /*tls=*/true).ok());
  EXPECT_EQ(after.PeerCertificateDer(), b_der);
  auto new_reply = after.Post("/validate", "text/plain", "2");
  ASSERT_TRUE(new_reply.ok()) << new_reply.status().ToString();
  EXPECT_EQ(new_reply->body(), "got 2");

  // The connection opened before the swap keeps its session (and the old context) alive.
  auto second = before.Post("/validate", "text/plain", "3");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->body(), "got 3");
  EXPECT_EQ(before.PeerCertificateDer(), a_der);

  // Bad credentials are refused as Start refuses them, and B stays in place.
  const Status mismatched = server.UpdateTls(TlsServingCredentials{a->cert_pem, b->key_pem});
  EXPECT_EQ(mismatched.code(), StatusCode::kInvalidArgument) << mismatched.ToString();
  EXPECT_NE(mismatched.message().find("does not match the serving certificate"), std::string::npos)
      << mismatched.ToString();
  const Status not_pem = server.UpdateTls(TlsServingCredentials{"hello", b->key_pem});
  EXPECT_EQ(not_pem.code(), StatusCode::kInvalidArgument) << not_pem.ToString();
  Connection later;
  ASSERT_TRUE(later.Connect(server.port(), /*tls=*/true).ok());
  EXPECT_EQ(later.PeerCertificateDer(), b_der);
  auto later_reply = later.Post("/validate", "text/plain", "4");
  ASSERT_TRUE(later_reply.ok()) << later_reply.status().ToString();
  EXPECT_EQ(later_reply->body(), "got 4");
}

TEST(HttpServerTest, UpdateTlsNeedsATlsServer) {
  auto creds = SelfSignedServingCredentials({"localhost"});
  ASSERT_TRUE(creds.ok());
  HttpServer server;
  EXPECT_EQ(server.UpdateTls(*creds).code(), StatusCode::kFailedPrecondition);  // not started
  ASSERT_TRUE(server.Start("127.0.0.1:0").ok());
  EXPECT_EQ(server.UpdateTls(*creds).code(), StatusCode::kFailedPrecondition);  // plain HTTP
  server.Stop();
  EXPECT_EQ(server.UpdateTls(*creds).code(), StatusCode::kFailedPrecondition);  // stopped
}

TEST(HttpServerTest, UpdateTlsWhileConnecting) {
  // Swaps race with handshakes and requests; run under TSAN (the tsan preset) to check locking.
  auto a = SelfSignedServingCredentials({"localhost"});
  auto b = SelfSignedServingCredentials({"localhost"});
  ASSERT_TRUE(a.ok() && b.ok());
  HttpServer server;
  server.HandlePost("/validate", [](const HttpRequest&) {
    return HttpResponse{200, "text/plain", "ok"};
  });
  ASSERT_TRUE(server.Start("127.0.0.1:0", {.tls = *a, .threads = 4}).ok());
  std::atomic<bool> done = false;
  std::thread swapper([&] {
    for (int i = 0; !done; ++i) {
      EXPECT_TRUE(server.UpdateTls(i % 2 == 0 ? *b : *a).ok());
    }
  });
  const std::string a_der = CertificateDer(a->cert_pem);
  const std::string b_der = CertificateDer(b->cert_pem);
  for (int i = 0; i < 20; ++i) {
    Connection c;
    ASSERT_TRUE(c.Connect(server.port(), /*tls=*/true).ok());
    const std::string der = c.PeerCertificateDer();
    EXPECT_TRUE(der == a_der || der == b_der);
    auto reply = c.Post("/validate", "text/plain", "x");
    ASSERT_TRUE(reply.ok()) << reply.status().ToString();
    EXPECT_EQ(reply->body(), "ok");
  }
  done = true;
  swapper.join();
}

TEST(HttpServerTest, BadBindAddressIsAClearError) {
  HttpServer server;
  const Status s = server.Start("not-an-ip:80");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not-an-ip"), std::string::npos);
}

}  // namespace
}  // namespace rdmastack::runtime
