#include "gateway/s3/s3_client.h"

#include "gateway/s3/crypto.h"

namespace rdmastack::s3 {

StatusOr<HttpResponse> S3Client::Send(const S3Request& request) const {
  RequestToSign to_sign;
  to_sign.method = request.method;
  to_sign.path = request.path;
  to_sign.query = request.query;
  to_sign.payload_sha256_hex = Sha256Hex(request.body);
  std::string amz_date = FormatAmzDate(clock_.WallNow());
  to_sign.headers = request.extra_headers;
  to_sign.headers.emplace_back("host", endpoint_.HostHeader());
  to_sign.headers.emplace_back("x-amz-date", amz_date);
  to_sign.headers.emplace_back("x-amz-content-sha256", to_sign.payload_sha256_hex);
  Signature sig = SignRequest(to_sign, credentials_, region_, "s3", amz_date);

  HttpRequest http;
  http.method = request.method;
  http.target = UriEncode(request.path, true);
  std::string query = CanonicalQueryString(request.query);
  if (!query.empty()) http.target += "?" + query;
  http.headers = to_sign.headers;
  http.headers.emplace_back("authorization", sig.authorization);
  http.body = request.body;
  return transport_.RoundTrip(endpoint_, http, timeout_);
}

StatusOr<HttpResponse> S3Client::GetUnsigned(const std::string& path) const {
  HttpRequest http;
  http.method = "GET";
  http.target = UriEncode(path, true);
  http.headers.emplace_back("host", endpoint_.HostHeader());
  return transport_.RoundTrip(endpoint_, http, timeout_);
}

std::string S3ErrorCode(std::string_view body) {
  size_t start = body.find("<Code>");
  if (start == std::string_view::npos) return "";
  start += 6;
  size_t end = body.find("</Code>", start);
  if (end == std::string_view::npos) return "";
  return std::string(body.substr(start, end - start));
}

}  // namespace rdmastack::s3
