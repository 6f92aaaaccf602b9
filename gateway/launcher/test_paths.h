#pragma once
// Where tests find the build outputs and checked-in fixtures. The directories are compiled in
// (see gateway/launcher/CMakeLists.txt); the environment may override them.

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace rdmastack::gateway::testing {

inline std::string BinaryDir() {
  const char* d = std::getenv("RDMASTACK_GATEWAY_TEST_BINARY_DIR");
  return d ? d : RDMASTACK_TEST_BINARY_DIR;
}
inline std::string SourceDir() {
  const char* d = std::getenv("RDMASTACK_GATEWAY_TEST_SOURCE_DIR");
  return d ? d : RDMASTACK_TEST_SOURCE_DIR;
}
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
