#include "tests/harness/node-runtime/node_table.h"

#include <gtest/gtest.h>

namespace rdmastack::sim {
namespace {

TEST(NodeTable, ParsesNodesAndSkipsComments) {
  auto t = ParseNodeTable(
      "# name netns address root\n"
      "stg-node-0 rdmastack-sim-stg-node-0 198.18.200.10 /state/nodes/stg-node-0/root\n"
      "\n"
      "gpu-node-0  rdmastack-sim-gpu-node-0  198.18.200.11  /r  # trailing comment\n",
      "nodes");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->size(), 2u);
  const SimulatedNode& n = t->at("gpu-node-0");
  EXPECT_EQ(n.address, "198.18.200.11");
  EXPECT_EQ(n.host_root, "/r");
  EXPECT_EQ(n.NetnsPath(), "/run/netns/rdmastack-sim-gpu-node-0");
}

TEST(NodeTable, BadLinesNameTheLineAndTheProblem) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"a ns 198.18.0.1\n", "nodes:1: want 4 fields"},
      {"a ns 198.18.0.1 /r extra\n", "want 4 fields"},
      {"\na ns 127.0.0.300 /r\n", "nodes:2: '127.0.0.300' is not an IPv4 address"},
      {"a ns 198.18.0.1 relative\n", "host root 'relative' is not absolute"},
      {"a ns 198.18.0.1 /r\na ns 198.18.0.2 /r\n", "node a is listed twice"},
  };
  for (const Case& c : cases) {
    auto t = ParseNodeTable(c.text, "nodes");
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_NE(t.status().message().find(c.want), std::string::npos) << t.status().message();
  }
}

TEST(NodeTable, MissingFileIsNotFoundNamingThePath) {
  auto t = LoadNodeTable("/nonexistent/nodes.txt");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kNotFound);
  EXPECT_NE(t.status().message().find("/nonexistent/nodes.txt"), std::string::npos);
}

}  // namespace
}  // namespace rdmastack::sim
