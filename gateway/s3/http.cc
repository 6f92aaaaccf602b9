#include "gateway/s3/http.h"

#include <strings.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <charconv>

namespace rdmastack::s3 {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// Upper bound on a response body we are willing to buffer (probe and tests move small objects).
constexpr uint64_t kMaxBodyBytes = 256ull << 20;

Status FromError(const beast::error_code& ec, std::string_view stage, const Endpoint& endpoint) {
  std::string where = std::string(stage) + " " + endpoint.ToString();
  if (ec == beast::error::timeout || ec == asio::error::timed_out) {
    return DeadlineExceededError("no answer within the deadline during " + where);
  }
  if (ec == asio::error::connection_refused)
    return UnavailableError("nothing listening at " + endpoint.ToString());
  if (ec == asio::error::host_unreachable || ec == asio::error::network_unreachable ||
      ec == asio::error::host_not_found || ec == asio::error::host_not_found_try_again) {
    return UnavailableError(ec.message() + " during " + where);
  }
  // Any parser error (beast's http category) or a peer that hung up mid-answer.
  const bool parse_error = std::string_view(ec.category().name()) == "beast.http";
  if (parse_error || ec == http::error::end_of_stream || ec == asio::error::eof ||
      ec == asio::error::connection_reset) {
    return DataLossError("bad HTTP response during " + where + ": " + ec.message());
  }
  return UnknownError(ec.message() + " during " + where);
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
                                "; expected http://HOST:PORT");
  };
  Endpoint ep;
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) return bad("has no scheme");
  ep.scheme = std::string(url.substr(0, sep));
  if (ep.scheme == "https") return bad("uses https, which the probe does not support yet");
  if (ep.scheme != "http") return bad("has an unknown scheme");
  std::string_view rest = url.substr(sep + 3);
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos) return bad("has a path");
  if (rest.empty()) return bad("has no host");
  size_t colon = rest.rfind(':');
  ep.port = 80;
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
  beast::tcp_stream stream(io);
  tcp::resolver resolver(io);
  beast::flat_buffer buffer;
  http::request<http::string_body> req;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxBodyBytes);
  beast::error_code failure;
  std::string_view stage = "resolve";

  req.method_string(request.method);
  req.target(request.target);
  req.version(11);
  for (const auto& [k, v] : request.headers) req.set(k, v);
  req.body() = request.body;
  req.prepare_payload();
  req.set(http::field::connection, "close");

  // The whole exchange shares one deadline; beast::tcp_stream enforces it on every step.
  auto on_read = [&](beast::error_code ec, size_t) {
    if (ec) failure = ec;
  };
  auto on_write = [&](beast::error_code ec, size_t) {
    if (ec) {
      failure = ec;
      return;
    }
    stage = "read";
    http::async_read(stream, buffer, parser, on_read);
  };
  auto on_connect = [&](beast::error_code ec, const tcp::endpoint&) {
    if (ec) {
      failure = ec;
      return;
    }
    stage = "write";
    http::async_write(stream, req, on_write);
  };
  auto on_resolve = [&](beast::error_code ec, tcp::resolver::results_type results) {
    if (ec) {
      failure = ec;
      return;
    }
    stage = "connect";
    stream.async_connect(results, on_connect);
  };
  stream.expires_after(timeout);
  resolver.async_resolve(endpoint.host, std::to_string(endpoint.port), on_resolve);
  io.run();
  if (failure) return FromError(failure, stage, endpoint);

  HttpResponse out;
  const auto& res = parser.get();
  out.status = static_cast<int>(res.result_int());
  for (const auto& field : res) {
    out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  out.body = res.body();
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  return out;
}

}  // namespace rdmastack::s3
