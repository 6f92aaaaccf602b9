#include "controllers/gatewaypool/node_verdict.h"

#include <gtest/gtest.h>

#include "controllers/gatewaypool/tests/test_pools.h"

namespace rdmastack::gatewaypool {
namespace {

using testing::AgentStatus;

struct Case {
  const char* name;
  std::optional<std::string> interface;
  std::optional<std::string> cidr;
  std::optional<crd::RdmaNodeStatus> rdma;
  bool verified;
  std::string reason;
  std::string address;
};

TEST(NodeVerdictTest, Table) {
  const std::vector<Case> cases = {
      {"bond0 on IPoIB",
       "bond0",
       {},
       AgentStatus(true, {"bond0 10.10.0.11/24"}),
       true,
       "",
       "10.10.0.11"},
      {"no agent yet", "bond0", {}, std::nullopt, false, "AgentNotReporting", ""},
      {"agent says not capable",
       "bond0",
       {},
       AgentStatus(false, {"bond0 10.10.0.11/24"}, "PortDown"),
       false,
       "PortDown",
       ""},
      {"RoCE node has no bond0",
       "bond0",
       {},
       AgentStatus(true, {"ens1f0np0 192.168.50.21/24"}),
       false,
       "InterfaceNotFound",
       ""},
      {"bond0 is not RDMA",
       "eth0",
       {},
       AgentStatus(true, {"eth0 10.0.0.5/24"}),
       false,
       "InterfaceNotRdma",
       ""},
      {"two addresses on the interface",
       "bond0",
       {},
       AgentStatus(true, {"bond0 10.10.0.11/24 10.10.0.12/24"}),
       false,
       "AmbiguousRdmaAddress",
       ""},
      {"cidr picks one",
       {},
       "192.168.50.0/24",
       AgentStatus(true, {"ens1f0np0 192.168.50.21/24", "ens1f0np0.100 192.168.60.21/24"}),
       true,
       "",
       "192.168.50.21"},
      {"cidr ignores non-RDMA netdevs",
       {},
       "10.0.0.0/8",
       AgentStatus(true, {"eth0 10.0.0.5/24", "ib0 10.10.0.21/24"}),
       true,
       "",
       "10.10.0.21"},
      {"cidr matches nothing",
       {},
       "172.16.0.0/12",
       AgentStatus(true, {"ib0 10.10.0.21/24"}),
       false,
       "NoAddressInCidr",
       ""},
      {"cidr matches two",
       {},
       "192.168.0.0/16",
       AgentStatus(true, {"ens1f0np0 192.168.50.21/24", "ens1f0np0.100 192.168.60.21/24"}),
       false,
       "AmbiguousRdmaAddress",
       ""},
  };
  for (const Case& c : cases) {
    crd::GatewayPoolSpec spec = testing::SamplePool().spec;
    spec.rdma.interface = c.interface;
    spec.rdma.cidr = c.cidr;
    const NodeVerdict v =
        VerifyNode(spec, NodeInput{"stg-node-0", {}, c.rdma ? &*c.rdma : nullptr});
    EXPECT_EQ(v.verified, c.verified) << c.name << ": " << v.message;
    EXPECT_EQ(v.reason, c.reason) << c.name;
    EXPECT_EQ(v.rdma_address, c.address) << c.name;
    if (!c.verified) {
      EXPECT_FALSE(v.message.empty()) << c.name;
    }
  }
}

TEST(NodeVerdictTest, MissingInterfaceListsWhatTheNodeHas) {
  crd::GatewayPoolSpec spec = testing::SamplePool().spec;
  const crd::RdmaNodeStatus s = AgentStatus(true, {"ens1f0np0 192.168.50.21/24"});
  const NodeVerdict v = VerifyNode(spec, NodeInput{"n", {}, &s});
  EXPECT_NE(v.message.find("ens1f0np0 192.168.50.21/24"), std::string::npos) << v.message;
}

TEST(NodeVerdictTest, SilentAgentIsNotReporting) {
  crd::RdmaNodeStatus s = AgentStatus(true, {"bond0 10.10.0.11/24"});
  s.conditions[0].status = crd::ConditionStatus::kFalse;
  s.conditions[0].message = "the agent is not connected";
  crd::GatewayPoolSpec spec = testing::SamplePool().spec;
  const NodeVerdict v = VerifyNode(spec, NodeInput{"n", {}, &s});
  EXPECT_EQ(v.reason, "AgentNotReporting");
  EXPECT_EQ(v.message, "the agent is not connected");
}

}  // namespace
}  // namespace rdmastack::gatewaypool
