#pragma once
// The bytes of a pinned library file against the sha256 the compatibility data gives for it
// (serverLibraries[].sha256, clientLibraries[].sha256). A library image is chosen by a tenant and
// named by a mutable tag; its file name says which release it claims to be, only its bytes say
// which it is. The launcher checks libcuobjserver before vgwrdma starts, the client checks
// libcuobjclient before installing it on the host; both refuse with LibraryDigestMismatch.

#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack::compat {

// The condition/state reason of a refused library whose bytes differ.
inline constexpr std::string_view kReasonLibraryDigestMismatch = "LibraryDigestMismatch";
// The launcher's refusal class for it: its line "rdmastack-gateway: refused (library-digest): ..."
// is the gateway container's termination message, which the operator reads.
inline constexpr std::string_view kLibraryDigestRefusalClass = "library-digest";

// 64 lower-case hex digits: the only spelling of a sha256 the data and the flags accept.
bool IsSha256Hex(std::string_view hex);

// Lower-case hex sha256 of the regular file `name` in the absolute directory `dir`, both opened
// through HostDir (base/host_dir.h): no link is followed on the way or at the name (a link could
// name any host file). Memory-mapped, so a large file costs page cache, not heap.
StatusOr<std::string> FileSha256Hex(const std::string& dir, const std::string& name);

// Pure decision: OK when `found` equals `expected` (both hex); DataLoss naming the file and both
// digests otherwise. `expected` empty means the bytes are not pinned: OK.
Status CheckLibraryDigest(std::string_view file, std::string_view found, std::string_view expected);

// Hash + check. DataLoss on a mismatch; NotFound/FailedPrecondition when the file cannot be read
// as a regular file.
Status VerifyLibraryDigest(const std::string& dir, const std::string& name,
                           std::string_view expected);

// Whether a Status from VerifyLibraryDigest is the mismatch (not an unreadable file).
inline bool IsLibraryDigestMismatch(const Status& s) {
  return s.code() == StatusCode::kDataLoss;
}

}  // namespace rdmastack::compat
