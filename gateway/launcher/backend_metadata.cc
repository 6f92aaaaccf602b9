#include "gateway/launcher/backend_metadata.h"

#include <sys/xattr.h>

#include <cerrno>
#include <cstring>

#include "lib/compat/named_refusal.h"

namespace rdmastack::gateway {
namespace {

constexpr char kCheckAttribute[] = "user.rdmastack.xattr-check";
constexpr std::string_view kCheckValue = "rdmastack";

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

StatusOr<MetadataMode> ParseMetadataMode(std::string_view text) {
  const std::string mode = Lower(text);
  if (mode == "xattr") return MetadataMode::kXattr;
  if (mode == "sidecar") return MetadataMode::kSidecar;
  if (mode == "none") return MetadataMode::kNone;
  return InvalidArgumentError(
      "--metadata (RDMASTACK_GW_METADATA) must be Xattr, Sidecar or None, "
      "got '" +
      std::string(text) + "'");
}

Status CheckUserXattr(const HostDir& root) {
  StatusOr<UniqueFd> fd_or = root.OpenScratchFile();
  if (!fd_or.ok())
    return UnavailableError("cannot check the user xattrs of gateway root " + root.path() + ": " +
                            fd_or.status().message());
  const UniqueFd fd = std::move(*fd_or);
  auto refused = [&](const char* step, int error) {
    return FailedPreconditionError(
        std::string(compat::kReasonBackendNoUserXattr) + ": the file system of gateway root " +
        root.path() + " does not keep user extended attributes (" + step + " " + kCheckAttribute +
        ": " + std::strerror(error) +
        "), where versitygw keeps object metadata; mount it with user_xattr, or set the pool's "
        "backend.posix.metadata to Sidecar (a directory of its own) or None (no metadata)");
  };
  if (::fsetxattr(fd.get(), kCheckAttribute, kCheckValue.data(), kCheckValue.size(), 0) != 0)
    return refused("setting", errno);
  char read_back[sizeof("rdmastack") + 8] = {};
  const ssize_t n = ::fgetxattr(fd.get(), kCheckAttribute, read_back, sizeof(read_back));
  if (n < 0) return refused("reading back", errno);
  if (std::string_view(read_back, static_cast<size_t>(n)) != kCheckValue)
    return refused("reading back a different value of", EIO);
  (void)::fremovexattr(fd.get(), kCheckAttribute);
  return OkStatus();
}

Status CheckSidecarApart(const std::string& root, const std::string& sidecar) {
  auto holds = [](const std::string& outer, const std::string& inner) {
    const std::string prefix = outer.ends_with('/') ? outer : outer + "/";
    return inner.starts_with(prefix);
  };
  std::string problem;
  if (sidecar == root) {
    problem = "is the gateway root";
  } else if (holds(root, sidecar)) {
    problem = "lies inside the gateway root " + root + " (it would be served as a bucket)";
  } else if (sidecar.starts_with(root)) {
    // versitygw 1.8.0 compares the two as text: it refuses "<root>.meta" as inside the root.
    problem = "begins with the gateway root's path " + root +
              ", which versitygw refuses as a sidecar inside the root";
  } else if (holds(sidecar, root)) {
    problem = "holds the gateway root " + root;
  }
  if (problem.empty()) return OkStatus();
  return InvalidArgumentError("metadata sidecar directory " + sidecar + " " + problem +
                              "; give backend.posix.sidecarPathTemplate a directory beside the "
                              "root whose path does not begin with the root's, e.g. "
                              "<parent>/meta-{nodeName}");
}

}  // namespace rdmastack::gateway
