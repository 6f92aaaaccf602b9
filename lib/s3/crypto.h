#pragma once
// HMAC-SHA256 through OpenSSL, in the shape SigV4 needs (SHA-256 itself: base/sha256.h).

#include <string>
#include <string_view>

#include "base/sha256.h"

namespace rdmastack::s3 {

// The raw 32-byte MAC.
std::string HmacSha256(std::string_view key, std::string_view data);

// SHA-256 of the empty string: the payload hash of every body-less request.
inline constexpr std::string_view kEmptyPayloadSha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

}  // namespace rdmastack::s3
