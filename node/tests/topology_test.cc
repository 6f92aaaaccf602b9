#include <gtest/gtest.h>

#include "node/probe/netdev_probe.h"
#include "node/probe/pci_topology.h"

namespace rdmastack::node {
namespace {

TEST(TopologyTest, AncestorsSkipRootAndDownstreamPorts) {
  auto a = NcclAncestors(
      "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0", 0);
  EXPECT_EQ(a, (std::vector<std::string>{"0000:18:00.0", "CPU:0"}));
  EXPECT_EQ(NcclAncestors("sys/devices/pci0000:4a/0000:4a:01.0/0000:4b:00.0", 1),
            (std::vector<std::string>{"CPU:1"}));
}

TEST(TopologyTest, SameSwitchIsPix) {
  EXPECT_EQ(ComputePathType(
                "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0", 0,
                "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:04.0/0000:1b:00.0", 0),
            PathType::kPix);
}

TEST(TopologyTest, SharedUpperSwitchIsPxb) {
  const char* gpu =
      "sys/devices/pci0000:0f/0000:0f:01.0/0000:10:00.0/0000:11:00.0/0000:12:00.0/0000:13:00.0/"
      "0000:14:00.0";
  const char* nic = "sys/devices/pci0000:0f/0000:0f:01.0/0000:10:00.0/0000:11:01.0/0000:15:00.0";
  EXPECT_EQ(ComputePathType(gpu, 0, nic, 0), PathType::kPxb);
}

TEST(TopologyTest, BroadcomTwoLevelSwitchIsFlattenedToPix) {
  // Root port -> PEX89xxx USP 16:00.0 -> DSP 17:00.0 -> internal USP 18:00.0 -> DSPs -> GPU / NIC,
  // GPU and NIC under different internal sub-switches.
  const char* gpu =
      "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0/0000:19:00.0/"
      "0000:1a:00.0";
  const char* nic =
      "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:1b:00.0/0000:1c:00.0/"
      "0000:1d:00.0";
  EXPECT_EQ(ComputePathType(gpu, 0, nic, 0), PathType::kPxb);
  BcmSwitchTest bcm = [](std::string_view bdf) {
    return bdf == "0000:16:00.0" || bdf == "0000:18:00.0" || bdf == "0000:1b:00.0";
  };
  EXPECT_EQ(NcclAncestors(gpu, 0, bcm), (std::vector<std::string>{"0000:16:00.0", "CPU:0"}));
  EXPECT_EQ(ComputePathType(gpu, 0, nic, 0, bcm), PathType::kPix);
  // Other vendors' switches stay two levels.
  BcmSwitchTest none = [](std::string_view) { return false; };
  EXPECT_EQ(ComputePathType(gpu, 0, nic, 0, none), PathType::kPxb);
}

TEST(TopologyTest, SameNumaDifferentHostBridgeIsPhbAndCrossNumaIsSys) {
  const char* gpu = "sys/devices/pci0000:4a/0000:4a:01.0/0000:4b:00.0";
  const char* nic = "sys/devices/pci0000:c9/0000:c9:01.0/0000:ca:00.0";
  EXPECT_EQ(ComputePathType(gpu, 0, nic, 0), PathType::kPhb);
  EXPECT_EQ(ComputePathType(gpu, 0, nic, 1), PathType::kSys);
  // Unknown NUMA (-1) on both: NCCL keys both to CPU "-1", so PHB.
  EXPECT_EQ(ComputePathType(gpu, -1, nic, -1), PathType::kPhb);
}

TEST(TopologyTest, ParsesPathTypeNames) {
  PathType t = PathType::kSys;
  EXPECT_TRUE(ParsePathType("pxb", &t));
  EXPECT_EQ(t, PathType::kPxb);
  EXPECT_FALSE(ParsePathType("NODE", &t));
}

TEST(RoceMtuTest, KernelDerivation) {
  EXPECT_EQ(RoceMtuFromNetdevMtu(1500), 1024);
  EXPECT_EQ(RoceMtuFromNetdevMtu(4096), 2048);
  EXPECT_EQ(RoceMtuFromNetdevMtu(4192), 4096);
  EXPECT_EQ(RoceMtuFromNetdevMtu(9000), 4096);
  EXPECT_EQ(RoceMtuFromNetdevMtu(300), 0);
}

// An HGX-style switch: a GPU and its NIC on two downstream ports of one PEX switch; the ports a
// peer-to-peer write crosses are those two, and nothing when the devices share no switch.
TEST(TopologyTest, BridgesBetweenAreTheSwitchPortsBelowTheSharedOne) {
  const std::string sw = "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0";
  EXPECT_EQ(BridgesBetween(sw + "/0000:19:08.0/0000:1a:00.0", sw + "/0000:19:10.0/0000:1b:00.0"),
            (std::vector<std::string>{"0000:19:08.0", "0000:19:10.0"}));
  // One level deeper on the NIC's side (a second switch below the first).
  EXPECT_EQ(
      BridgesBetween(sw + "/0000:19:08.0/0000:1a:00.0",
                     sw + "/0000:19:10.0/0000:20:00.0/0000:21:04.0/0000:22:00.0"),
      (std::vector<std::string>{"0000:19:08.0", "0000:19:10.0", "0000:20:00.0", "0000:21:04.0"}));
  // Different root ports, different host bridges, not PCI paths: no bridge in common.
  EXPECT_TRUE(BridgesBetween("sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0",
                             "sys/devices/pci0000:17/0000:17:02.0/0000:19:00.0")
                  .empty());
  EXPECT_TRUE(BridgesBetween(sw + "/0000:19:08.0/0000:1a:00.0",
                             "sys/devices/pci0000:97/0000:97:00.0/0000:98:00.0")
                  .empty());
  EXPECT_TRUE(
      BridgesBetween("sys/devices/virtual/net/lo", sw + "/0000:19:08.0/0000:1a:00.0").empty());
}

TEST(TopologyTest, PcieRootIsTheHostBridgeOfTheResolvedPath) {
  EXPECT_EQ(PcieRoot("sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0"), "pci0000:17");
  EXPECT_EQ(PcieRoot("/sys/devices/pci0000:00/0000:00:01.0"), "pci0000:00");
  // A VMD domain has five hex digits.
  EXPECT_EQ(PcieRoot("sys/devices/pci0000:00/0000:00:0e.0/pci10000:e0/10000:e0:06.0"),
            "pci0000:00");
  EXPECT_EQ(PcieRoot("sys/devices/pci10000:e0/10000:e0:06.0"), "pci10000:e0");
  // Not below a host bridge, or not a host bridge's form.
  EXPECT_EQ(PcieRoot("sys/devices/virtual/net/rxe0"), "");
  EXPECT_EQ(PcieRoot("sys/devices/platform/soc/pci"), "");
  EXPECT_EQ(PcieRoot("sys/devices/pci0000:1/0000:01:00.0"), "");
  EXPECT_EQ(PcieRoot("sys/devices/pcixyzw:17/0000:17:00.0"), "");
  EXPECT_EQ(PcieRoot("sys/devices/pci000:17/0000:17:00.0"), "");
  EXPECT_EQ(PcieRoot(""), "");
}

}  // namespace
}  // namespace rdmastack::node
