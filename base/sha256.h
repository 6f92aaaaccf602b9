#pragma once
// SHA-256 through OpenSSL: the one digest rdmastack computes (SigV4, content hashes of rendered
// objects, label-name hashes, token cache keys).

#include <string>
#include <string_view>

namespace rdmastack {

// The raw 32-byte digest.
std::string Sha256(std::string_view data);
// Lower-case hex of `bytes`.
std::string HexEncode(std::string_view bytes);
// Lower-case hex of the digest.
inline std::string Sha256Hex(std::string_view data) {
  return HexEncode(Sha256(data));
}

}  // namespace rdmastack
