#include "lib/s3/s3_client.h"

#include "lib/s3/crypto.h"

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
  http.response_limit = request.response_limit;
  return transport_.RoundTrip(endpoint_, http, timeout_);
}

StatusOr<HttpResponse> S3Client::GetUnsigned(const std::string& path,
                                             BodyLimit response_limit) const {
  HttpRequest http;
  http.method = "GET";
  http.target = UriEncode(path, true);
  http.headers.emplace_back("host", endpoint_.HostHeader());
  http.response_limit = response_limit;
  return transport_.RoundTrip(endpoint_, http, timeout_);
}

std::vector<std::string_view> XmlElementTexts(std::string_view body, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">";
  const std::string close = "</" + std::string(tag) + ">";
  std::vector<std::string_view> out;
  for (size_t at = body.find(open); at != std::string_view::npos; at = body.find(open, at)) {
    at += open.size();
    const size_t end = body.find(close, at);
    if (end == std::string_view::npos) break;
    out.emplace_back(body.substr(at, end - at));
    at = end + close.size();
  }
  return out;
}

std::string S3ErrorCode(std::string_view body) {
  std::vector<std::string_view> codes = XmlElementTexts(body, "Code");
  return codes.empty() ? "" : std::string(codes.front());
}

}  // namespace rdmastack::s3
