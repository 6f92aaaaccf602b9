#include "lib/compat/library_digest.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/sha256.h"

namespace rdmastack::compat {
namespace {

// Closes on every return path.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

StatusOr<std::string> FileSha256Hex(const std::string& dir, const std::string& name) {
  const std::string path = dir + "/" + name;
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    return InvalidArgumentError("library file name '" + name + "' is not a plain file name");
  }
  Fd d{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (d.fd < 0) return NotFoundError("cannot open " + dir + ": " + std::strerror(errno));
  Fd f{::openat(d.fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) {
    const int err = errno;
    if (err == ELOOP) {
      return FailedPreconditionError(path +
                                     " is a symbolic link; the pinned file must be the "
                                     "library itself");
    }
    return NotFoundError("cannot open " + path + ": " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) return InternalError("fstat " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    return FailedPreconditionError(path + " is not a regular file");
  }
  if (st.st_size == 0) return Sha256Hex("");
  void* map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, f.fd, 0);
  if (map == MAP_FAILED) return InternalError("mmap " + path + ": " + std::strerror(errno));
  std::string hex =
      Sha256Hex(std::string_view(static_cast<const char*>(map), static_cast<size_t>(st.st_size)));
  ::munmap(map, static_cast<size_t>(st.st_size));
  return hex;
}

bool IsSha256Hex(std::string_view hex) {
  return hex.size() == 64 && std::all_of(hex.begin(), hex.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool IsLibraryDigestRefusalLine(std::string_view message) {
  return message.find("refused (" + std::string(kLibraryDigestRefusalClass) + "): ") !=
         std::string_view::npos;
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
