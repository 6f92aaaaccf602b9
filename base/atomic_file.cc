#include "base/atomic_file.h"

#include <filesystem>

#include "base/host_dir.h"

namespace rdmastack {

Status WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::filesystem::path full = std::filesystem::absolute(path).lexically_normal();
  const std::string dir = full.parent_path().string();
  const std::string name = full.filename().string();
  StatusOr<HostDir> d = HostDir::Open(dir, /*create=*/false);
  if (!d.ok()) {
    const StatusCode code = d.status().code() == StatusCode::kUnavailable
                                ? StatusCode::kUnavailable
                                : StatusCode::kPermissionDenied;
    return Status(code, "cannot write " + path + ": " + d.status().message());
  }
  Status s = d->WriteFile(name, content, 0644);
  if (!s.ok() && s.message().find(path) == std::string::npos) {
    return Status(s.code() == StatusCode::kPermissionDenied ? s.code() : StatusCode::kUnavailable,
                  "cannot write " + path + ": " + s.message());
  }
  return s;
}

}  // namespace rdmastack
