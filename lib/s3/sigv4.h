#pragma once
// AWS Signature Version 4 for header-signed requests (Authorization header), as S3 and every
// S3-compatible server (versitygw included) verify it. Pure functions: the caller supplies the
// timestamp, so the published test vectors can be reproduced exactly.

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rdmastack::s3 {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
};

using KeyValues = std::vector<std::pair<std::string, std::string>>;

struct RequestToSign {
  std::string method;              // GET, PUT, ...
  std::string path;                // decoded, starts with '/'; encoded here (S3 style, '/' kept)
  KeyValues query;                 // decoded names and values
  KeyValues headers;               // every header to sign; must include host (and x-amz-date)
  std::string payload_sha256_hex;  // or "UNSIGNED-PAYLOAD"
};

struct Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;  // "host;x-amz-date"
  std::string signature;       // hex
  std::string authorization;   // value of the Authorization header
};

// RFC 3986 percent-encoding as SigV4 defines it: unreserved A-Z a-z 0-9 - . _ ~ stay,
// everything else becomes %XX (upper-case hex); '/' stays when keep_slash.
std::string UriEncode(std::string_view text, bool keep_slash);

std::string CanonicalQueryString(const KeyValues& query);

// "20150830T123600Z".
std::string FormatAmzDate(std::chrono::system_clock::time_point when);

// amz_date is the request's x-amz-date value ("YYYYMMDDTHHMMSSZ").
Signature SignRequest(const RequestToSign& request, const Credentials& credentials,
                      std::string_view region, std::string_view service, std::string_view amz_date);

}  // namespace rdmastack::s3
