#include "agents/client/library_digest.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "base/host_dir.h"
#include "lib/compat/library_digest.h"

namespace rdmastack::client {
namespace {

// Regular files directly in `dir` (lstat: a link is not one).
StatusOr<std::vector<std::string>> RegularFiles(const std::string& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), &::closedir);
  if (!d) return NotFoundError("cannot list " + dir + ": " + std::strerror(errno));
  std::vector<std::string> out;
  while (const dirent* e = ::readdir(d.get())) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (::fstatat(::dirfd(d.get()), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(st.st_mode)) {
      out.push_back(name);
    }
  }
  return out;
}

}  // namespace

Status ParseLibraryDigestFlag(std::string_view value, LibraryDigests* digests) {
  const size_t eq = value.find('=');
  const std::string name(value.substr(0, eq));
  const std::string hex(eq == std::string_view::npos ? "" : value.substr(eq + 1));
  if (eq == std::string_view::npos || !CheckPlainName(name).ok() || !compat::IsSha256Hex(hex)) {
    return InvalidArgumentError(
        "--library-sha256 wants FILE=SHA256 (a file name of "
        "--library-dir and 64 lower-case hex digits), not '" +
        std::string(value) + "'");
  }
  if (!digests->emplace(name, hex).second) {
    return InvalidArgumentError("--library-sha256 names " + name + " twice");
  }
  return OkStatus();
}

Status CheckStagedLibraries(const std::string& library_dir, const LibraryDigests& digests) {
  if (digests.empty()) return OkStatus();
  RDMASTACK_ASSIGN_OR_RETURN(std::vector<std::string> files, RegularFiles(library_dir));
  for (const std::string& name : files) {
    if (digests.count(name) == 0) {
      return DataLossError(name +
                           " in the library image is not a file the compatibility data "
                           "pins (it pins " +
                           digests.begin()->first +
                           "); nothing from the image is installed: rebuild the image with only "
                           "the pinned library");
    }
  }
  for (const auto& [name, want] : digests) {
    StatusOr<std::string> found = compat::FileSha256Hex(library_dir, name);
    if (found.status().code() == StatusCode::kNotFound) {
      return DataLossError(name + " (sha256 " + want + ") is not in the library image's " +
                           library_dir + "; nothing from the image is installed");
    }
    if (!found.ok()) return DataLossError(found.status().message());
    RDMASTACK_RETURN_IF_ERROR(compat::CheckLibraryDigest(name, *found, want));
  }
  return OkStatus();
}

}  // namespace rdmastack::client
