#include <gtest/gtest.h>

#include "servers/agenthub/agent_hub.h"

namespace rdmastack::agenthub {
namespace {

AgentHubOptions Valid() {
  AgentHubOptions o;
  o.policy.service_account_namespace = "agents";
  o.policy.service_account_name = "rdmastack-agent";
  o.certificates.namespace_ = "agents";
  o.certificates.hosts = {"rdmastack-agenthub.agents.svc"};
  return o;
}

TEST(AgentHubOptionsTest, TlsFrameSizeIsGrpcsDefaultOrWithinTsisBounds) {
  AgentHubOptions o = Valid();
  EXPECT_TRUE(ValidateAgentHubOptions(o).ok());  // 4 KiB
  o.tsi_max_frame_size = 0;                      // gRPC's 16 KiB
  EXPECT_TRUE(ValidateAgentHubOptions(o).ok());
  for (int ok : {1024, 4096, 16384}) {
    o.tsi_max_frame_size = ok;
    EXPECT_TRUE(ValidateAgentHubOptions(o).ok()) << ok;
  }
  for (int bad : {-1, 512, 16385, 1 << 20}) {
    o.tsi_max_frame_size = bad;
    const Status s = ValidateAgentHubOptions(o);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("TLS frame size"), std::string::npos) << s.message();
  }
}

TEST(AgentHubOptionsTest, MmapThresholdIsOffOrWithinGlibcsRange) {
  AgentHubOptions o = Valid();
  for (size_t ok : {size_t{0}, size_t{4096}, size_t{16384}, size_t{32} << 20}) {
    o.malloc_mmap_threshold_bytes = ok;
    EXPECT_TRUE(ValidateAgentHubOptions(o).ok()) << ok;
  }
  for (size_t bad : {size_t{1}, size_t{4095}, (size_t{32} << 20) + 1}) {
    o.malloc_mmap_threshold_bytes = bad;
    const Status s = ValidateAgentHubOptions(o);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("mmap threshold"), std::string::npos) << s.message();
  }
}

TEST(AgentHubOptionsTest, MemoryTrimOptionsAreChecked) {
  AgentHubOptions o = Valid();
  o.memory_trim.churn_fraction = 2;
  const Status s = ValidateAgentHubOptions(o);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("churn fraction"), std::string::npos) << s.message();
  o.memory_trim.churn_fraction = 0;  // off
  EXPECT_TRUE(ValidateAgentHubOptions(o).ok());
}

}  // namespace
}  // namespace rdmastack::agenthub
