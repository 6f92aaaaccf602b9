#include "lib/compat/library_digest.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/host_dir.h"
#include "base/sha256.h"

namespace rdmastack::compat {

StatusOr<std::string> FileSha256Hex(const std::string& dir, const std::string& name) {
  // HostDir: the name must be one plain component, and only a regular file is opened, without
  // following a link (a link could name any host file).
  RDMASTACK_ASSIGN_OR_RETURN(HostDir d, HostDir::Open(dir, /*create=*/false));
  RDMASTACK_ASSIGN_OR_RETURN(OpenedFile f, d.OpenRegular(name));
  const std::string path = dir + "/" + name;
  if (f.st.st_size == 0) return Sha256Hex("");
  const size_t size = static_cast<size_t>(f.st.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, f.fd.get(), 0);
  if (map == MAP_FAILED) return InternalError("mmap " + path + ": " + std::strerror(errno));
  std::string hex = Sha256Hex(std::string_view(static_cast<const char*>(map), size));
  ::munmap(map, size);
  return hex;
}

bool IsSha256Hex(std::string_view hex) {
  return hex.size() == 64 && std::all_of(hex.begin(), hex.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

Status CheckLibraryDigest(std::string_view file, std::string_view found,
                          std::string_view expected) {
  if (expected.empty() || found == expected) return OkStatus();
  return DataLossError(std::string(file) + ": sha256 is " + std::string(found) +
                       ", the compatibility data expects " + std::string(expected) +
                       "; the library image holds other bytes than the pinned release (rebuild "
                       "it from the vendor's package, or correct the sha256 in the "
                       "compatibility data)");
}

Status VerifyLibraryDigest(const std::string& dir, const std::string& name,
                           std::string_view expected) {
  if (expected.empty()) return OkStatus();
  RDMASTACK_ASSIGN_OR_RETURN(std::string found, FileSha256Hex(dir, name));
  return CheckLibraryDigest(name, found, expected);
}

}  // namespace rdmastack::compat
