#include "tests/harness/node-runtime/node_table.h"

#include <arpa/inet.h>

#include <fstream>
#include <sstream>

namespace rdmastack::sim {

StatusOr<NodeTable> ParseNodeTable(std::string_view text, std::string_view source) {
  NodeTable table;
  std::istringstream lines{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream fields(line);
    SimulatedNode node;
    std::string extra;
    if (!(fields >> node.name)) continue;
    const std::string where = std::string(source) + ":" + std::to_string(number) + ": ";
    if (!(fields >> node.netns >> node.address >> node.host_root) || (fields >> extra)) {
      return InvalidArgumentError(where + "want 4 fields (NAME NETNS ADDRESS HOST_ROOT), got '" +
                                  line + "'");
    }
    in_addr addr{};
    if (inet_pton(AF_INET, node.address.c_str(), &addr) != 1) {
      return InvalidArgumentError(where + "'" + node.address + "' is not an IPv4 address");
    }
    if (node.host_root.empty() || node.host_root.front() != '/') {
      return InvalidArgumentError(where + "host root '" + node.host_root + "' is not absolute");
    }
    if (!table.emplace(node.name, node).second) {
      return InvalidArgumentError(where + "node " + node.name + " is listed twice");
    }
  }
  return table;
}

StatusOr<NodeTable> LoadNodeTable(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFoundError("cannot read the node table " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return ParseNodeTable(s.str(), path);
}

}  // namespace rdmastack::sim
