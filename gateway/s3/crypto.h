#pragma once
// SHA-256 and HMAC-SHA256 through OpenSSL, in the shapes SigV4 needs.

#include <string>
#include <string_view>

namespace rdmastack::s3 {

// Raw 32-byte digests.
std::string Sha256(std::string_view data);
std::string HmacSha256(std::string_view key, std::string_view data);

// Lower-case hex, as SigV4 writes hashes and signatures.
std::string HexEncode(std::string_view bytes);
inline std::string Sha256Hex(std::string_view data) {
  return HexEncode(Sha256(data));
}

// SHA-256 of the empty string: the payload hash of every body-less request.
inline constexpr std::string_view kEmptyPayloadSha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

}  // namespace rdmastack::s3
