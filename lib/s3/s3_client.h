#pragma once
// Signs and sends single S3 requests (path-style addressing) through an HttpTransport.

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "lib/s3/http.h"
#include "lib/s3/sigv4.h"

namespace rdmastack::s3 {

struct S3Request {
  std::string method;
  std::string path;  // decoded: "/", "/bucket", "/bucket/key with spaces"
  KeyValues query;   // decoded
  std::string body;
  KeyValues extra_headers;  // signed as well
  BodyLimit response_limit;
};

class S3Client {
 public:
  S3Client(HttpTransport& transport, Endpoint endpoint, Credentials credentials, std::string region,
           const Clock& clock, std::chrono::milliseconds timeout)
      : transport_(transport),
        endpoint_(std::move(endpoint)),
        credentials_(std::move(credentials)),
        region_(std::move(region)),
        clock_(clock),
        timeout_(timeout) {}

  // SigV4-signed request; the payload hash is the SHA-256 of the body.
  StatusOr<HttpResponse> Send(const S3Request& request) const;
  // Unsigned GET of a path (the gateway's health endpoint).
  StatusOr<HttpResponse> GetUnsigned(const std::string& path, BodyLimit response_limit = {}) const;

  const Endpoint& endpoint() const { return endpoint_; }

 private:
  HttpTransport& transport_;
  Endpoint endpoint_;
  Credentials credentials_;
  std::string region_;
  const Clock& clock_;
  std::chrono::milliseconds timeout_;
};

// Every XML element text <tag>...</tag> in `body`, in order (no nesting of the same tag); views
// into `body`, so that a large answer is not copied piece by piece.
std::vector<std::string_view> XmlElementTexts(std::string_view body, std::string_view tag);

// Text of the first <Code>...</Code> in an S3 XML error body, or "".
std::string S3ErrorCode(std::string_view body);

}  // namespace rdmastack::s3
