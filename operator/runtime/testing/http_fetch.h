#pragma once
// A one-shot HTTP(S) request (GET unless told) against 127.0.0.1 for tests of the probe, metrics
// and webhook servers.

#include <openssl/ssl.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <string>

#include "base/status.h"

namespace rdmastack::runtime::testing {

struct FetchOptions {
  bool tls = false;
  std::string bearer_token;  // sent as "Authorization: Bearer <token>" when not empty
  // With tls: verify the server against this PEM CA for the name "localhost"; "" = no
  // verification (curl -k).
  std::string ca_pem;
  int max_tls_version = 0;  // e.g. TLS1_1_VERSION; 0 = the library's newest
  std::string method = "GET";
  std::string body;  // sent with Content-Type application/json when not empty
};

struct FetchReply {
  int status = 0;
  std::string content_type;
  std::string body;
};

inline StatusOr<FetchReply> HttpFetch(uint16_t port, const std::string& target,
                                      const FetchOptions& options = {}) {
  namespace asio = boost::asio;
  namespace beast = boost::beast;
  namespace http = beast::http;
  asio::io_context io;
  beast::error_code ec;
  http::request<http::string_body> request(http::string_to_verb(options.method), target, 11);
  request.set(http::field::host, "localhost");
  if (!options.body.empty()) {
    request.set(http::field::content_type, "application/json");
    request.body() = options.body;
    request.prepare_payload();
  }
  if (!options.bearer_token.empty()) {
    request.set(http::field::authorization, "Bearer " + options.bearer_token);
  }
  http::response<http::string_body> response;
  beast::flat_buffer buffer;
  const asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
  if (!options.tls) {
    beast::tcp_stream stream(io);
    stream.connect(endpoint, ec);
    if (!ec) http::write(stream, request, ec);
    if (!ec) http::read(stream, buffer, response, ec);
  } else {
    asio::ssl::context tls(asio::ssl::context::tls_client);
    if (options.max_tls_version != 0) {
      SSL_CTX_set_min_proto_version(tls.native_handle(), 0);
      SSL_CTX_set_max_proto_version(tls.native_handle(), options.max_tls_version);
      SSL_CTX_set_security_level(tls.native_handle(), 0);  // let the client offer old versions
    }
    if (options.ca_pem.empty()) {
      tls.set_verify_mode(asio::ssl::verify_none);
    } else {
      tls.add_certificate_authority(asio::buffer(options.ca_pem), ec);
      tls.set_verify_mode(asio::ssl::verify_peer);
    }
    beast::ssl_stream<beast::tcp_stream> stream(io, tls);
    if (!ec && !options.ca_pem.empty()) {
      stream.set_verify_callback(asio::ssl::host_name_verification("localhost"), ec);
    }
    if (!ec) beast::get_lowest_layer(stream).connect(endpoint, ec);
    if (!ec) stream.handshake(asio::ssl::stream_base::client, ec);
    if (!ec) http::write(stream, request, ec);
    if (!ec) http::read(stream, buffer, response, ec);
  }
  if (ec) return UnavailableError(options.method + " " + target + ": " + ec.message());
  return FetchReply{static_cast<int>(response.result_int()),
                    std::string(response[http::field::content_type]), response.body()};
}

}  // namespace rdmastack::runtime::testing
