#pragma once
// Where gateway tests find build outputs and checked-in fixtures; the trees themselves come from
// the shared test harness (tests/harness).

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

}  // namespace rdmastack::gateway::testing
