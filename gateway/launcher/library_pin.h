#pragma once
// Verifies, before vgwrdma starts, that the gateway binary and the pinned libcuobjserver belong
// together: the pinned file is present, its DT_SONAME carries the pinned major, the binary's
// DT_NEEDED asks for exactly that SONAME, and the SONAME link the loader will follow leads to the
// pinned file. A mismatch otherwise surfaces only at the first RDMA request, or as a loader error
// that does not say which side is wrong.

#include <string>
#include <vector>

#include "base/status.h"

namespace rdmastack::gateway {

inline constexpr std::string_view kServerLibraryStem = "libcuobjserver.so.";

struct LibraryPin {
  std::string dir;           // holds libcuobjserver.so.<full_version> (+ the SONAME link)
  std::string full_version;  // "1.2.0.68"
  int major = 0;             // 1
  // Lower-case hex sha256 the pinned file's bytes must have (the compatibility data's
  // serverLibraries[].sha256, passed by the operator); "" = not pinned by bytes.
  std::string sha256;
  std::string PinnedFileName() const { return std::string(kServerLibraryStem) + full_version; }
  std::string ExpectedSoname() const {
    return std::string(kServerLibraryStem) + std::to_string(major);
  }
};

// "1.2.0.68" -> 1; the version must be dot-separated decimal numbers (at least major.minor.patch)
// and agree with `major`; a sha256, when set, must be 64 lower-case hex digits.
Status ValidateLibraryPin(const LibraryPin& pin);

// Everything the decision needs, read from disk by GatherLibraryPinFacts.
struct LibraryPinFacts {
  std::vector<std::string> versions_present;  // full versions of libcuobjserver.so.* files in dir
  bool pinned_file_present = false;
  std::string pinned_soname;                // DT_SONAME of the pinned file
  std::vector<std::string> gateway_needed;  // DT_NEEDED of the gateway binary
  bool soname_link_present = false;         // dir/<pinned_soname> exists
  std::string soname_link_target;           // file name it resolves to
};

// Pure decision; the message names both sides and the fix.
Status CheckLibraryPin(const LibraryPin& pin, const std::string& gateway_binary,
                       const LibraryPinFacts& facts);

// Reads the directory and both ELF files. Unreadable/malformed ELF files are errors here.
StatusOr<LibraryPinFacts> GatherLibraryPinFacts(const LibraryPin& pin,
                                                const std::string& gateway_binary);

// Gather + check.
Status VerifyLibraryPin(const LibraryPin& pin, const std::string& gateway_binary);

// The pinned file's bytes against pin.sha256 (OK when unset). A mismatch is DataLoss
// (compat::IsLibraryDigestMismatch), which the launcher refuses as library-digest; vgwrdma would
// otherwise map whatever the library image put under the pinned name.
Status VerifyLibraryBytes(const LibraryPin& pin);

// http mode: the binary must not be a vgwrdma build (it would demand --rdma-ip and a library).
// A statically linked binary (plain versitygw is CGO_ENABLED=0) needs nothing and passes.
Status VerifyPlainGateway(const std::string& gateway_binary);

}  // namespace rdmastack::gateway
