#include "gateway/launcher/gwroot.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "base/host_dir.h"

namespace rdmastack::gateway {

StatusOr<std::string> ExpandGwrootTemplate(const std::string& tmpl, const std::string& node_name) {
  if (tmpl.empty()) {
    return InvalidArgumentError("gateway root template is empty; pass --gwroot-template");
  }
  std::string out;
  for (size_t i = 0; i < tmpl.size();) {
    if (tmpl.compare(i, kNodePlaceholder.size(), kNodePlaceholder) == 0) {
      if (node_name.empty()) {
        return InvalidArgumentError("gateway root template '" + tmpl +
                                    "' uses {node} but the node name is unknown; set NODE_NAME "
                                    "from spec.nodeName or pass --node-name");
      }
      if (node_name.find('/') != std::string::npos || node_name == "." || node_name == "..") {
        return InvalidArgumentError("node name '" + node_name + "' cannot be a path component");
      }
      out += node_name;
      i += kNodePlaceholder.size();
      continue;
    }
    if (tmpl[i] == '{' || tmpl[i] == '}') {
      return InvalidArgumentError("gateway root template '" + tmpl +
                                  "' has an unknown placeholder; only {node} is supported");
    }
    out.push_back(tmpl[i++]);
  }
  if (out.front() != '/') {
    return InvalidArgumentError("gateway root '" + out + "' is not an absolute path");
  }
  return out;
}

Status CheckMountedApartFrom(const std::string& gwroot, const std::string& system_dir) {
  struct stat system {};
  if (::stat(system_dir.c_str(), &system) != 0) {
    return FailedPreconditionError("cannot stat " + system_dir + " (the system-disk reference " +
                                   "for --require-mount): " + std::strerror(errno));
  }
  std::string existing = gwroot;
  struct stat root {};
  while (::stat(existing.c_str(), &root) != 0) {
    if (errno != ENOENT || existing == "/")
      return FailedPreconditionError("cannot stat " + existing + ": " + std::strerror(errno));
    existing = std::filesystem::path(existing).parent_path().string();
  }
  if (root.st_dev == system.st_dev) {
    return FailedPreconditionError(
        "backend.posix.requireMount: gateway root " + gwroot +
        (existing == gwroot ? std::string() : " (not created; its parent " + existing + ")") +
        " is on the node's system disk, the file system of " + system_dir +
        ": the backend is not mounted; mount it (check the node's Lustre/NFS mount), or set "
        "requireMount to false for a local directory");
  }
  return OkStatus();
}

Status EnsureGwroot(const std::string& path, bool create) {
  // The root comes from the pool's spec: opened one component at a time without following a link
  // (base/host_dir.h), so a link planted on the backend cannot send the gateway elsewhere.
  StatusOr<HostDir> dir = HostDir::Open(path, create);
  if (dir.ok()) return OkStatus();
  const Status& s = dir.status();
  if (s.code() == StatusCode::kNotFound) {
    return NotFoundError("gateway root " + path +
                         " does not exist; mount the backend there, "
                         "create the directory, or pass --create-gwroot");
  }
  if (s.code() == StatusCode::kFailedPrecondition || s.code() == StatusCode::kInvalidArgument) {
    return FailedPreconditionError("gateway root " + path + ": " + s.message() +
                                   "; give the real directory, without links or '..'");
  }
  return UnavailableError("cannot " + std::string(create ? "create" : "open") + " gateway root " +
                          path + ": " + s.message());
}

}  // namespace rdmastack::gateway
