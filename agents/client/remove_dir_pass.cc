#include "agents/client/remove_dir_pass.h"

#include <spdlog/spdlog.h>

#include "base/host_dir.h"

namespace rdmastack::client {

ClientState RemoveDirPass(const std::string& root, const std::string& name,
                          std::chrono::system_clock::time_point now) {
  ClientState st;
  st.updated = now;
  const std::string path = root + "/" + name;
  StatusOr<HostDir> dir = HostDir::Open(root, /*create=*/false);
  StatusOr<bool> removed = false;
  if (dir.ok()) {
    removed = dir->RemoveTree(name);
  } else if (dir.status().code() != StatusCode::kNotFound) {
    removed = dir.status();
  }
  if (!removed.ok()) {
    st.reason = kReasonRemoveFailed;
    st.message = "cannot remove " + path + ": " + std::string(removed.status().message());
    spdlog::warn("remove-dir: {}", st.message);
    return st;
  }
  if (*removed) spdlog::info("remove-dir: removed {}", path);
  st.ready = true;
  st.reason = kReasonRemoved;
  st.message = path + " is gone";
  return st;
}

}  // namespace rdmastack::client
