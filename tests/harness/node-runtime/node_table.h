#pragma once
// The simulated nodes one runtime serves, as scripts/cluster.sh writes them: one line per node,
//   NAME NETNS ADDRESS HOST_ROOT
// separated by whitespace; '#' starts a comment.

#include <map>
#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack::sim {

struct SimulatedNode {
  std::string name;
  std::string netns;      // name under /run/netns
  std::string address;    // the node's InternalIP, inside its network namespace
  std::string host_root;  // the directory that is "/" for the node's hostPath volumes
  std::string NetnsPath() const { return "/run/netns/" + netns; }
};

using NodeTable = std::map<std::string, SimulatedNode>;  // by node name

StatusOr<NodeTable> ParseNodeTable(std::string_view text, std::string_view source);
StatusOr<NodeTable> LoadNodeTable(const std::string& path);

}  // namespace rdmastack::sim
