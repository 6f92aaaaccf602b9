// RDMA address resolution over the node agent's fixture hosts (tests/fixtures/nodes/), read by
// the agent's probe library exactly as on a real node.
#include "gateway/launcher/rdma_address.h"

#include <gtest/gtest.h>

#include "gateway/launcher/test_paths.h"

namespace rdmastack::gateway {
namespace {

using testing::NodeIps;
using testing::NodeRoot;

constexpr char kIbBond[] = "storage-cx6-ib-ipoib-bond0-el8-inbox";  // bond0 10.10.0.11, IB up
constexpr char kIbDown[] = "storage-cx6-ib-port-down";              // ib0 10.10.0.12, port DOWN
constexpr char kRoce[] = "gateway-roce-v2-gid3-doca";  // ens1f0np0 (+ .100 VLAN), RoCE v2
constexpr char kNoRdma[] = "node-without-rdma";        // eth0 10.0.0.5, no RDMA device

StatusOr<RdmaAddress> Resolve(const std::string& profile, const std::string& selector) {
  StatusOr<RdmaSelector> sel = ParseRdmaSelector(selector);
  if (!sel.ok()) return sel.status();
  return ProbeRdmaAddress(*sel, NodeRoot(profile), NodeIps(profile));
}

TEST(RdmaAddress, IpoibBondOnInfiniBand) {
  for (const char* selector : {"bond0", "10.10.0.0/16", "10.10.0.11/32"}) {
    StatusOr<RdmaAddress> a = Resolve(kIbBond, selector);
    ASSERT_TRUE(a.ok()) << selector << ": " << a.status().ToString();
    EXPECT_EQ(a->ipv4, "10.10.0.11");
    EXPECT_EQ(a->netdev, "bond0");
    EXPECT_EQ(a->link_layer, "InfiniBand");
    EXPECT_FALSE(a->rdma_device.empty());
    EXPECT_EQ(a->port, 1);
  }
}

TEST(RdmaAddress, RoceInterfaceAndVlanUpper) {
  StatusOr<RdmaAddress> a = Resolve(kRoce, "ens1f0np0");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->ipv4, "192.168.50.21");
  EXPECT_EQ(a->link_layer, "Ethernet");
  StatusOr<RdmaAddress> vlan = Resolve(kRoce, "192.168.60.0/24");
  ASSERT_TRUE(vlan.ok()) << vlan.status().ToString();
  EXPECT_EQ(vlan->netdev, "ens1f0np0.100");
  EXPECT_EQ(vlan->rdma_device, a->rdma_device);
}

TEST(RdmaAddress, RoceLagBond) {
  StatusOr<RdmaAddress> a = Resolve("storage-cx6dx-roce-bond-lag", "bond0");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->ipv4, "192.168.70.31");
  EXPECT_EQ(a->rdma_device, "mlx5_bond_0");
  EXPECT_EQ(a->link_layer, "Ethernet");
}

TEST(RdmaAddress, Refusals) {
  struct Case {
    const char* profile;
    const char* selector;
    StatusCode code;
    const char* want;
  };
  const Case cases[] = {
      {kIbDown, "ib0", StatusCode::kUnavailable,
       "10.10.0.12 on ib0 is on mlx5_0 port 1 which is not up (state DOWN"},
      {kNoRdma, "eth0", StatusCode::kFailedPrecondition,
       "10.0.0.5 is on eth0, which is not backed by an RDMA port"},
      {kIbBond, "ib7", StatusCode::kNotFound, "interface ib7 does not exist"},
      {kIbBond, "ib0", StatusCode::kNotFound, "interface ib0 has no IPv4 address"},  // bond slave
      {kIbBond, "172.16.0.0/12", StatusCode::kNotFound,
       "no IPv4 address of this node lies in 172.16.0.0/12"},
      {kRoce, "192.168.0.0/16", StatusCode::kFailedPrecondition, "matches 2 addresses"},
      {kIbBond, "10.10.0.11", StatusCode::kInvalidArgument, "is a bare IP"},
      {kIbBond, "10.0.0.0/33", StatusCode::kInvalidArgument, "not a valid IPv4 CIDR"},
      {kIbBond, "bad name", StatusCode::kInvalidArgument, "neither an interface name"},
  };
  for (const Case& c : cases) {
    StatusOr<RdmaAddress> a = Resolve(c.profile, c.selector);
    ASSERT_FALSE(a.ok()) << c.selector;
    EXPECT_EQ(a.status().code(), c.code) << c.selector << ": " << a.status().ToString();
    EXPECT_NE(a.status().message().find(c.want), std::string::npos)
        << c.selector << ": " << a.status().message();
  }
}

// A rail of a multi-rail pool starts on its address even with the port down (the pool withdraws
// the rail's endpoints until the link is up); every other refusal stays one.
TEST(RdmaAddress, ARailMayStartWithItsPortDown) {
  StatusOr<RdmaSelector> sel = ParseRdmaSelector("ib0");
  ASSERT_TRUE(sel.ok());
  StatusOr<RdmaAddress> a =
      ProbeRdmaAddress(*sel, NodeRoot(kIbDown), NodeIps(kIbDown), /*allow_port_down=*/true);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->ipv4, "10.10.0.12");
  EXPECT_NE(a->port_down.find("mlx5_0 port 1 which is not up (state DOWN"), std::string::npos)
      << a->port_down;
  StatusOr<RdmaAddress> up = ProbeRdmaAddress(*ParseRdmaSelector("bond0"), NodeRoot(kIbBond),
                                              NodeIps(kIbBond), /*allow_port_down=*/true);
  ASSERT_TRUE(up.ok());
  EXPECT_EQ(up->port_down, "");
  StatusOr<RdmaAddress> missing = ProbeRdmaAddress(*ParseRdmaSelector("ib7"), NodeRoot(kIbBond),
                                                   NodeIps(kIbBond), /*allow_port_down=*/true);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST(RdmaAddress, MissingIpsFileIsReported) {
  StatusOr<RdmaSelector> sel = ParseRdmaSelector("bond0");
  ASSERT_TRUE(sel.ok());
  StatusOr<RdmaAddress> a = ProbeRdmaAddress(*sel, NodeRoot(kIbBond), "/nonexistent.ips");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(a.status().message().find("cannot list the node's IPv4 addresses (/nonexistent.ips)"),
            std::string::npos)
      << a.status().message();
}

}  // namespace
}  // namespace rdmastack::gateway
