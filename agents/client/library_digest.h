#pragma once
// The client's check of the library image's files before they are installed on the host: each
// file the operator pins (--library-sha256 NAME=HEX, from the compatibility data's
// clientLibraries) must be there with exactly those bytes, and, once anything is pinned, the
// staging directory may hold no other regular file (whatever else the image put there would be
// installed beside the pinned library, on every labelled pod's LD_LIBRARY_PATH). Links are the
// installer's business (it makes the SONAME link itself).

#include <map>
#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack::client {

// File name -> lower-case hex sha256.
using LibraryDigests = std::map<std::string, std::string>;

// "libcuobjclient.so.1.2.0.68=<64 hex>" into `digests`; the name must be a plain file name and
// may be given once.
Status ParseLibraryDigestFlag(std::string_view value, LibraryDigests* digests);

// OK when nothing is pinned or every pinned file matches and no unpinned regular file is there.
// DataLoss (compat::IsLibraryDigestMismatch: reason LibraryDigestMismatch) for other bytes, a
// missing pinned file or an unpinned file; the message names the file and, for bytes, the
// expected and found digests.
Status CheckStagedLibraries(const std::string& library_dir, const LibraryDigests& digests);

}  // namespace rdmastack::client
