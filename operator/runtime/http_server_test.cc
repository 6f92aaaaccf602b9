#include "operator/runtime/http_server.h"

#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace rdmastack::runtime {
namespace {

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

TEST(HttpServerTest, BadBindAddressIsAClearError) {
  HttpServer server;
  const Status s = server.Start("not-an-ip:80");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not-an-ip"), std::string::npos);
}

}  // namespace
}  // namespace rdmastack::runtime
