#pragma once
// Where gateway tests find build outputs and checked-in fixtures; the trees themselves come from
// the shared test harness (tests/harness).

#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/harness/cluster_env.h"

namespace rdmastack::gateway::testing {

using rdmastack::testing::BinaryDir;
using rdmastack::testing::SourceDir;
inline std::string ElfFixture(const std::string& rel) {
  return BinaryDir() + "/tests/fixtures/gateway/elf/" + rel;
}
// The node agent's fixture hosts (tests/fixtures/nodes/<profile>/{root,ips.txt}).
inline std::string NodeRoot(const std::string& profile) {
  return SourceDir() + "/tests/fixtures/nodes/" + profile + "/root";
}
inline std::string NodeIps(const std::string& profile) {
  return SourceDir() + "/tests/fixtures/nodes/" + profile + "/ips.txt";
}
inline std::string GatewayBinary() {
  return BinaryDir() + "/bin/rdmastack-gateway";
}

// Whole file as bytes; "" when unreadable (the assertion that follows reports it).
inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A ramfs mounted at `dir` for the object's lifetime: a file system that keeps no user extended
// attributes (tmpfs does since Linux 6.6), as a backend without user_xattr. Needs CAP_SYS_ADMIN;
// error() says why it could not be mounted.
class ScopedRamfs {
 public:
  explicit ScopedRamfs(std::string dir) : dir_(std::move(dir)) {
    if (::mount("ramfs", dir_.c_str(), "ramfs", 0, nullptr) == 0) {
      mounted_ = true;
    } else {
      error_ = "cannot mount a ramfs at " + dir_ + ": " + std::strerror(errno);
    }
  }
  ~ScopedRamfs() {
    if (mounted_) (void)::umount2(dir_.c_str(), MNT_DETACH);
  }
  ScopedRamfs(const ScopedRamfs&) = delete;
  ScopedRamfs& operator=(const ScopedRamfs&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }

 private:
  std::string dir_;
  bool mounted_ = false;
  std::string error_;
};

}  // namespace rdmastack::gateway::testing
