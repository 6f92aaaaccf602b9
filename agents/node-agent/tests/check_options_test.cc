// `check` flags: defaults, every flag, and clear errors for bad values.
#include "agents/node-agent/cli/check_options.h"

#include <gtest/gtest.h>

namespace rdmastack::agent {
namespace {

TEST(CheckOptionsTest, DefaultsAndAllFlags) {
  auto o = ParseCheckOptions({"--role", "client"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->root, "/");
  EXPECT_EQ(o->output, OutputFormat::kTable);
  EXPECT_EQ(o->requirements.max_gpu_nic_distance, node::PathType::kPxb);
  EXPECT_EQ(o->requirements.gid_index, -1);

  o = ParseCheckOptions({"--root",
                         "/host",
                         "--role=gateway",
                         "--transport",
                         "HostMemory",
                         "--memory-registration",
                         "DMABuf",
                         "--max-transfer-size",
                         "192Mi",
                         "--max-gpu-nic-distance",
                         "PHB",
                         "--gid-index",
                         "3",
                         "--rdma-ip",
                         "10.10.0.11",
                         "--ips-file",
                         "ips",
                         "--probes-file",
                         "p",
                         "--live-probes",
                         "--output",
                         "json"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->root, "/host");
  EXPECT_EQ(o->requirements.role, node::Role::kGateway);
  EXPECT_EQ(o->requirements.transport, node::Transport::kHostMemory);
  EXPECT_EQ(o->requirements.registration, node::Registration::kDmaBuf);
  EXPECT_EQ(o->requirements.max_transfer_bytes, 192LL << 20);
  EXPECT_EQ(o->requirements.max_gpu_nic_distance, node::PathType::kPhb);
  EXPECT_EQ(o->requirements.gid_index, 3);
  EXPECT_EQ(o->requirements.rdma_ip, "10.10.0.11");
  EXPECT_TRUE(o->live_probes);
  EXPECT_EQ(o->output, OutputFormat::kJson);
}

TEST(CheckOptionsTest, BadInputSaysWhat) {
  struct Bad {
    std::vector<std::string> args;
    const char* says;
  };
  const std::vector<Bad> bad = {
      {{}, "--role is required"},
      {{"--role", "storage"}, "role must be gateway or client"},
      {{"--role", "client", "--transport", "gpudirect"}, "Auto, GPUDirect or HostMemory"},
      {{"--role", "client", "--max-transfer-size", "lots"}, "--max-transfer-size"},
      {{"--role", "client", "--max-gpu-nic-distance", "NODE"}, "PIX, PXB, PHB or SYS"},
      {{"--role", "client", "--output", "yaml"}, "table or json"},
      {{"--role", "client", "--rdma-ip", "10.1"}, "--rdma-ip"},
      {{"--role", "client", "--gid-index", "x"}, "--gid-index"},
      {{"--role", "client", "--frobnicate", "1"}, "unknown flag --frobnicate"},
      {{"--role"}, "needs a value"},
  };
  for (const Bad& b : bad) {
    auto o = ParseCheckOptions(b.args);
    ASSERT_FALSE(o.ok());
    EXPECT_NE(o.status().message().find(b.says), std::string::npos) << o.status().message();
  }
}

}  // namespace
}  // namespace rdmastack::agent
