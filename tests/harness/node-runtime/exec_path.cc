#include "tests/harness/node-runtime/exec_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <sstream>

namespace rdmastack::sim {

StatusOr<std::string> ResolveExecutable(const std::string& name,
                                        const std::vector<std::string>& env) {
  if (name.empty()) return InvalidArgumentError("exec: empty command");
  if (name.find('/') != std::string::npos) return name;
  std::string path = kDefaultPath;
  for (const std::string& e : env) {
    if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
  }
  std::istringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return NotFoundError("exec: \"" + name + "\": executable file not found in $PATH (" + path + ")");
}

}  // namespace rdmastack::sim
