#include "agents/client/uninstall_pass.h"

#include <spdlog/spdlog.h>

#include <vector>

namespace rdmastack::client {

ClientState UninstallPass(Installer& installer, std::chrono::system_clock::time_point now) {
  ClientState st;
  std::string failures;
  int removed = 0;
  for (const std::string& line : installer.Uninstall()) {
    if (line.rfind("cannot", 0) == 0) {
      spdlog::warn("uninstall: {}", line);
      failures += (failures.empty() ? "" : "; ") + line;
    } else {
      spdlog::info("uninstall: removed {}", line);
      ++removed;
    }
  }
  st.ready = failures.empty();
  st.reason = st.ready ? kReasonUninstalled : kReasonUninstallFailed;
  st.message = st.ready ? installer.dir() + " holds nothing a client installed (" +
                              std::to_string(removed) + " removed in this pass)"
                        : failures;
  st.updated = now;
  return st;
}

}  // namespace rdmastack::client
