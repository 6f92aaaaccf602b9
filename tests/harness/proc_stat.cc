#include "tests/harness/proc_stat.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace rdmastack::testing {

ProcStat ReadProcStat(pid_t pid) {
  ProcStat s;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos) return s;
  std::istringstream fields(text.substr(paren + 2));
  std::vector<std::string> f;
  for (std::string x; fields >> x;) f.push_back(x);
  const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
  if (f.size() > 15) {  // fields 14..17 of stat; f[0] is field 3
    s.cpu_s = (std::stod(f[11]) + std::stod(f[12])) / tick;
    s.children_cpu_s = (std::stod(f[13]) + std::stod(f[14])) / tick;
  }
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) s.rss_kib = std::atol(line.c_str() + 6);
    if (line.rfind("VmHWM:", 0) == 0) s.hwm_kib = std::atol(line.c_str() + 6);
  }
  return s;
}

TaskSwitches ReadTaskSwitches(pid_t pid) {
  TaskSwitches t;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return t;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream status(dir + "/" + e->d_name + "/status");
    bool read = false;
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) {
        t.voluntary += std::atol(line.c_str() + 24);
        read = true;
      }
      if (line.rfind("nonvoluntary_ctxt_switches:", 0) == 0) {
        t.involuntary += std::atol(line.c_str() + 27);
      }
    }
    t.threads += read;
  }
  ::closedir(d);
  return t;
}

int CountOpenSockets(pid_t pid) {
  std::error_code ec;
  const std::filesystem::path dir = "/proc/" + std::to_string(pid) + "/fd";
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return -1;
  int sockets = 0;
  for (const auto& entry : it) {
    const std::filesystem::path target = std::filesystem::read_symlink(entry.path(), ec);
    if (!ec && target.string().rfind("socket:", 0) == 0) ++sockets;
  }
  return sockets;
}

}  // namespace rdmastack::testing
