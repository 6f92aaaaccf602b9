#include "lib/s3/http.h"

#include <openssl/ssl.h>
#include <strings.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <charconv>
#include <type_traits>

namespace rdmastack::s3 {
namespace {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// Upper bound on a response body we are willing to buffer (probe and tests move small objects).
constexpr uint64_t kMaxBodyBytes = 256ull << 20;

Status FromError(const beast::error_code& ec, std::string_view stage, const Endpoint& endpoint) {
  std::string where = std::string(stage) + " " + endpoint.ToString();
  if (ec == beast::error::timeout || ec == asio::error::timed_out) {
    return DeadlineExceededError("no answer within the deadline during " + where);
  }
  if (ec == asio::error::connection_refused) {
    return UnavailableError("nothing listening at " + endpoint.ToString());
  }
  if (ec == asio::error::host_unreachable || ec == asio::error::network_unreachable ||
      ec == asio::error::host_not_found || ec == asio::error::host_not_found_try_again) {
    return UnavailableError(ec.message() + " during " + where);
  }
  if (ec.category() == asio::error::get_ssl_category() || ec == ssl::error::stream_truncated) {
    return DataLossError("TLS failed during " + where + ": " + ec.message() +
                         "; pass --ca-file with the CA that signed the gateway certificate, and "
                         "use the host name or IP the certificate names");
  }
  // Any parser error (beast's http category) or a peer that hung up mid-answer.
  const bool parse_error = std::string_view(ec.category().name()) == "beast.http";
  if (parse_error || ec == http::error::end_of_stream || ec == asio::error::eof ||
      ec == asio::error::connection_reset) {
    return DataLossError("bad HTTP response during " + where + ": " + ec.message());
  }
  return UnknownError(ec.message() + " during " + where);
}

// Starts one asynchronous step and runs the io_context until it completes. Steps run one after
// another, and the stream's single deadline (expires_after) bounds all of them together.
template <typename Start>
beast::error_code RunStep(asio::io_context& io, Start start) {
  beast::error_code result;
  start([&result](beast::error_code ec, auto&&...) { result = ec; });
  io.restart();
  io.run();
  return result;
}

template <typename Stream>
StatusOr<HttpResponse> Exchange(asio::io_context& io, Stream& stream,
                                const tcp::resolver::results_type& addresses,
                                http::request<http::string_body>& req, const Endpoint& endpoint,
                                std::chrono::milliseconds timeout) {
  auto& tcp_layer = beast::get_lowest_layer(stream);
  tcp_layer.expires_after(timeout);
  if (auto ec = RunStep(io, [&](auto done) { tcp_layer.async_connect(addresses, done); })) {
    return FromError(ec, "connect", endpoint);
  }
  if constexpr (std::is_same_v<Stream, TlsStream>) {
    if (auto ec = RunStep(
            io, [&](auto done) { stream.async_handshake(ssl::stream_base::client, done); })) {
      return FromError(ec, "TLS handshake", endpoint);
    }
  }
  if (auto ec = RunStep(io, [&](auto done) { http::async_write(stream, req, done); })) {
    return FromError(ec, "write", endpoint);
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxBodyBytes);
  if (auto ec = RunStep(io, [&](auto done) { http::async_read(stream, buffer, parser, done); })) {
    return FromError(ec, "read", endpoint);
  }
  HttpResponse out;
  const auto& res = parser.get();
  out.status = static_cast<int>(res.result_int());
  for (const auto& field : res) {
    out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  out.body = res.body();
  beast::error_code ignored;
  tcp_layer.socket().shutdown(tcp::socket::shutdown_both, ignored);
  return out;
}

http::request<http::string_body> BuildRequest(const HttpRequest& request) {
  http::request<http::string_body> req;
  req.method_string(request.method);
  req.target(request.target);
  req.version(11);
  for (const auto& [k, v] : request.headers) req.set(k, v);
  req.body() = request.body;
  req.prepare_payload();
  req.set(http::field::connection, "close");
  return req;
}

}  // namespace

std::string Endpoint::HostHeader() const {
  bool default_port = (scheme == "http" && port == 80) || (scheme == "https" && port == 443);
  return default_port ? host : host + ":" + std::to_string(port);
}

std::string Endpoint::ToString() const {
  return scheme + "://" + host + ":" + std::to_string(port);
}

StatusOr<Endpoint> ParseEndpoint(std::string_view url) {
  auto bad = [&](std::string_view why) {
    return InvalidArgumentError("endpoint '" + std::string(url) + "' " + std::string(why) +
                                "; expected http://HOST:PORT or https://HOST:PORT");
  };
  Endpoint ep;
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) return bad("has no scheme");
  ep.scheme = std::string(url.substr(0, sep));
  if (ep.scheme != "http" && ep.scheme != "https") return bad("has an unknown scheme");
  std::string_view rest = url.substr(sep + 3);
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos) return bad("has a path");
  if (rest.empty()) return bad("has no host");
  size_t colon = rest.rfind(':');
  ep.port = ep.scheme == "https" ? 443 : 80;
  std::string_view host = rest;
  if (colon != std::string_view::npos && rest.find(']') == std::string_view::npos) {
    host = rest.substr(0, colon);
    std::string_view port = rest.substr(colon + 1);
    unsigned value = 0;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || ptr != port.data() + port.size() || value == 0 || value > 65535) {
      return bad("has an invalid port");
    }
    ep.port = static_cast<uint16_t>(value);
  }
  if (host.empty()) return bad("has no host");
  ep.host = std::string(host);
  return ep;
}

std::string HttpResponse::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k.size() == name.size() && strncasecmp(k.data(), name.data(), k.size()) == 0) return v;
  }
  return "";
}

StatusOr<HttpResponse> BeastHttpTransport::RoundTrip(const Endpoint& endpoint,
                                                     const HttpRequest& request,
                                                     std::chrono::milliseconds timeout) {
  asio::io_context io;
  tcp::resolver resolver(io);
  tcp::resolver::results_type addresses;
  beast::error_code ec = RunStep(io, [&](auto done) {
    resolver.async_resolve(endpoint.host, std::to_string(endpoint.port),
                           [&addresses, done](beast::error_code e, tcp::resolver::results_type r) {
                             addresses = std::move(r);
                             done(e);
                           });
  });
  if (ec) return FromError(ec, "resolve", endpoint);
  http::request<http::string_body> req = BuildRequest(request);

  if (endpoint.scheme != "https") {
    beast::tcp_stream stream(io);
    return Exchange(io, stream, addresses, req, endpoint, timeout);
  }
  ssl::context ctx(ssl::context::tls_client);
  ctx.set_verify_mode(ssl::verify_peer);
  if (!tls_.ca_file.empty()) {
    ctx.load_verify_file(tls_.ca_file, ec);
  } else if (!tls_.ca_pem.empty()) {
    ctx.add_certificate_authority(asio::buffer(tls_.ca_pem), ec);
  } else {
    ctx.set_default_verify_paths(ec);
  }
  if (ec) {
    return InvalidArgumentError("cannot load CA bundle '" +
                                (tls_.ca_file.empty() ? "(PEM text)" : tls_.ca_file) +
                                "': " + ec.message());
  }
  TlsStream stream(io, ctx);
  // SNI only for names (RFC 6066 forbids IP literals); the certificate is checked against the
  // name or IP address we dialled either way.
  boost::system::error_code not_ip;
  asio::ip::make_address(endpoint.host, not_ip);
  if (not_ip) SSL_set_tlsext_host_name(stream.native_handle(), endpoint.host.c_str());
  stream.set_verify_callback(
      ssl::host_name_verification(tls_.verify_name.empty() ? endpoint.host : tls_.verify_name));
  return Exchange(io, stream, addresses, req, endpoint, timeout);
}

}  // namespace rdmastack::s3
