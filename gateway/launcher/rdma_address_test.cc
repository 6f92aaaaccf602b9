// RDMA address resolution over the fixture host tests/fixtures/gateway/hosts/storage-node, read
// by the node agent's probe library exactly as on a real node.
#include "gateway/launcher/rdma_address.h"

#include <gtest/gtest.h>

#include "gateway/launcher/test_paths.h"

namespace rdmastack::gateway {
namespace {

using testing::HostFixture;

StatusOr<RdmaAddress> Resolve(const std::string& selector) {
  StatusOr<RdmaSelector> sel = ParseRdmaSelector(selector);
  if (!sel.ok()) return sel.status();
  return ProbeRdmaAddress(*sel, HostFixture("storage-node"), HostFixture("storage-node.ips"));
}

TEST(RdmaAddress, RoceInterfaceWithActivePort) {
  for (const char* selector : {"ens1f0np0", "10.10.0.0/16", "10.10.0.11/32"}) {
    StatusOr<RdmaAddress> a = Resolve(selector);
    ASSERT_TRUE(a.ok()) << selector << ": " << a.status().ToString();
    EXPECT_EQ(a->ipv4, "10.10.0.11");
    EXPECT_EQ(a->netdev, "ens1f0np0");
    EXPECT_EQ(a->rdma_device, "mlx5_0");
    EXPECT_EQ(a->port, 1);
    EXPECT_EQ(a->link_layer, "Ethernet");
  }
}

TEST(RdmaAddress, IpoibInterfaceOnInfiniBand) {
  for (const char* selector : {"ib0", "100.64.0.0/10"}) {
    StatusOr<RdmaAddress> a = Resolve(selector);
    ASSERT_TRUE(a.ok()) << selector << ": " << a.status().ToString();
    EXPECT_EQ(a->ipv4, "100.64.33.243");
    EXPECT_EQ(a->rdma_device, "mlx5_2");
    EXPECT_EQ(a->link_layer, "InfiniBand");
  }
}

TEST(RdmaAddress, Refusals) {
  struct Case {
    const char* selector;
    StatusCode code;
    const char* want;
  };
  const Case cases[] = {
      {"ens1f1np1", StatusCode::kUnavailable,
       "mlx5_1 port 1 which is not up (state DOWN, phys_state Disabled)"},
      {"eth0", StatusCode::kFailedPrecondition, "not backed by an RDMA port"},
      {"bond0", StatusCode::kNotFound, "interface bond0 does not exist"},
      {"172.16.0.0/12", StatusCode::kNotFound,
       "no IPv4 address of this node lies in 172.16.0.0/12"},
      {"10.0.0.0/8", StatusCode::kFailedPrecondition, "matches 2 addresses"},
      {"10.10.0.11", StatusCode::kInvalidArgument, "is a bare IP"},
      {"10.0.0.0/33", StatusCode::kInvalidArgument, "not a valid IPv4 CIDR"},
      {"bad name", StatusCode::kInvalidArgument, "neither an interface name"},
  };
  for (const Case& c : cases) {
    StatusOr<RdmaAddress> a = Resolve(c.selector);
    ASSERT_FALSE(a.ok()) << c.selector;
    EXPECT_EQ(a.status().code(), c.code) << c.selector << ": " << a.status().ToString();
    EXPECT_NE(a.status().message().find(c.want), std::string::npos)
        << c.selector << ": " << a.status().message();
  }
}

TEST(RdmaAddress, MissingIpsFileIsReported) {
  StatusOr<RdmaSelector> sel = ParseRdmaSelector("ens1f0np0");
  ASSERT_TRUE(sel.ok());
  StatusOr<RdmaAddress> a = ProbeRdmaAddress(*sel, HostFixture("storage-node"), "/nonexistent.ips");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(a.status().message().find("cannot list the node's IPv4 addresses (/nonexistent.ips)"),
            std::string::npos)
      << a.status().message();
}

}  // namespace
}  // namespace rdmastack::gateway
