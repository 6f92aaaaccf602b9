#include "lib/s3/http.h"

#include <openssl/ssl.h>
#include <strings.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <charconv>
#include <type_traits>
#include <vector>

namespace rdmastack::s3 {
namespace {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// Bytes asked of the socket per read of the body: the body goes from here into the answer.
constexpr size_t kReadChunkBytes = 16 * 1024;

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

// The request's method and path, as an answer over its limit is reported (the query, which may
// name a user, is left out).
std::string CallName(const HttpRequest& request) {
  return request.method + " " + request.target.substr(0, request.target.find('?'));
}

Status OverLimit(const Endpoint& endpoint, const HttpRequest& request, std::string_view detail) {
  return ResourceExhaustedError("the answer of " + endpoint.ToString() + " to " +
                                CallName(request) + " is over this call's limit of " +
                                std::to_string(request.response_limit.max_bytes) + " bytes" +
                                std::string(detail) + "; it was not read further");
}

// Appends, doubling the capacity as the body grows, but never past the limit, and straight to
// the limit once half of it is passed: while the string moves to a larger buffer both are held,
// so a body of the limit costs at most 1.5 times it (std::string's own reserve doubles past it).
// The caller never appends past `max_bytes`.
void AppendBounded(std::string& out, const char* data, size_t size, uint64_t max_bytes) {
  if (out.size() + size > out.capacity()) {
    uint64_t capacity = std::max<uint64_t>(out.capacity() * 2, out.size() + size);
    if (capacity > max_bytes / 2) capacity = max_bytes;
    std::string grown;
    grown.reserve(static_cast<size_t>(capacity));
    grown.append(out);
    out.swap(grown);
  }
  out.append(data, size);
}

// Reads the body after the header, chunk by chunk straight into `out`, and stops at the limit:
// the answer is never held whole before it is measured.
template <typename Stream>
Status ReadBody(asio::io_context& io, Stream& stream, beast::flat_buffer& buffer,
                http::response_parser<http::buffer_body>& parser, const Endpoint& endpoint,
                const HttpRequest& request, HttpResponse& out) {
  const BodyLimit& limit = request.response_limit;
  const bool keep_prefix = limit.over == BodyLimit::Over::kKeepPrefix;
  if (const auto declared = parser.content_length(); declared && *declared > limit.max_bytes) {
    if (!keep_prefix) {
      return OverLimit(endpoint, request, " (Content-Length " + std::to_string(*declared) + ")");
    }
  } else if (declared) {
    out.body.reserve(static_cast<size_t>(*declared));
  }
  std::vector<char> chunk(kReadChunkBytes);
  while (!parser.is_done()) {
    auto& body = parser.get().body();
    body.data = chunk.data();
    body.size = chunk.size();
    beast::error_code ec =
        RunStep(io, [&](auto done) { http::async_read_some(stream, buffer, parser, done); });
    if (ec == http::error::need_buffer) ec = {};
    if (ec) return FromError(ec, "read", endpoint);
    const size_t got = chunk.size() - body.size;
    const uint64_t room = limit.max_bytes - out.body.size();
    if (got > room) {
      if (!keep_prefix) return OverLimit(endpoint, request, "");
      AppendBounded(out.body, chunk.data(), static_cast<size_t>(room), limit.max_bytes);
      out.body_truncated = true;
      return OkStatus();
    }
    AppendBounded(out.body, chunk.data(), got, limit.max_bytes);
  }
  return OkStatus();
}

template <typename Stream>
StatusOr<HttpResponse> Exchange(asio::io_context& io, Stream& stream,
                                const tcp::resolver::results_type& addresses,
                                const HttpRequest& request, const Endpoint& endpoint,
                                std::chrono::milliseconds timeout) {
  http::request<http::string_body> req = BuildRequest(request);
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
  http::response_parser<http::buffer_body> parser;
  // ReadBody counts the body itself (the parser would only fail, never keep a prefix).
  parser.body_limit(boost::none);
  if (auto ec =
          RunStep(io, [&](auto done) { http::async_read_header(stream, buffer, parser, done); })) {
    return FromError(ec, "read", endpoint);
  }
  HttpResponse out;
  const auto& res = parser.get();
  out.status = static_cast<int>(res.result_int());
  for (const auto& field : res) {
    out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  RDMASTACK_RETURN_IF_ERROR(ReadBody(io, stream, buffer, parser, endpoint, request, out));
  beast::error_code ignored;
  tcp_layer.socket().shutdown(tcp::socket::shutdown_both, ignored);
  return out;
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

  if (endpoint.scheme != "https") {
    beast::tcp_stream stream(io);
    return Exchange(io, stream, addresses, request, endpoint, timeout);
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
  return Exchange(io, stream, addresses, request, endpoint, timeout);
}

}  // namespace rdmastack::s3
