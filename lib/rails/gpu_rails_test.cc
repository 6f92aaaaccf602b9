#include "lib/rails/gpu_rails.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace rdmastack::rails {
namespace {

// Two GPUs of an HGX-like node: each has its compute NIC (PIX, on a compute rail) and reaches
// the two storage NICs through the CPU (PHB on its socket, SYS on the other).
std::vector<RailGpu> TwoGpus() {
  return {
      {"0000:1b:00.0",
       {{"mlx5_0", "PIX"}, {"mlx5_3", "SYS"}, {"mlx5_1", "PHB"}, {"mlx5_2", "SYS"}}},
      {"0000:43:00.0",
       {{"mlx5_3", "PIX"}, {"mlx5_0", "SYS"}, {"mlx5_1", "SYS"}, {"mlx5_2", "PHB"}}},
  };
}

bool AllWithin(const RailPlan& plan) {
  return std::all_of(plan.gpus.begin(), plan.gpus.end(),
                     [](const GpuRailChoice& g) { return g.within; });
}

std::vector<RailNic> Nics() {
  return {{"mlx5_0", {"10.40.0.17/24"}},
          {"mlx5_1", {"10.10.0.17/16"}},
          {"mlx5_2", {"10.11.0.17/16"}},
          {"mlx5_3", {"10.41.0.17/24"}}};
}

TEST(GpuRailsTest, WithoutPoolNetworksEachGpuTakesItsNearestNic) {
  const RailPlan plan = PlanGpuRails(TwoGpus(), Nics(), {}, "PXB");
  EXPECT_FALSE(plan.on_rails);
  ASSERT_EQ(plan.gpus.size(), 2u);
  EXPECT_EQ(plan.gpus[0].nic, "mlx5_0");
  EXPECT_EQ(plan.gpus[0].path_type, "PIX");
  EXPECT_EQ(plan.gpus[0].network, "");
  EXPECT_EQ(plan.gpus[1].nic, "mlx5_3");
  EXPECT_EQ(plan.devices, (std::vector<std::string>{"mlx5_0", "mlx5_3"}));
  EXPECT_EQ(plan.reachable.size(), 4u);
  EXPECT_TRUE(AllWithin(plan));
}

TEST(GpuRailsTest, NetworksNoNicSitsInLeaveTheChoiceToRouting) {
  const RailPlan plan = PlanGpuRails(TwoGpus(), Nics(), {{"a", "192.168.0.0/24"}}, "PXB");
  EXPECT_FALSE(plan.on_rails);
  EXPECT_EQ(plan.devices, (std::vector<std::string>{"mlx5_0", "mlx5_3"}));
}

TEST(GpuRailsTest, OnThePoolsRailsEachGpuTakesItsNearestNicThere) {
  const std::vector<RailNetwork> rails = {{"a", "10.10.0.0/16"}, {"b", "10.11.0.0/16"}};
  const RailPlan plan = PlanGpuRails(TwoGpus(), Nics(), rails, "PHB");
  EXPECT_TRUE(plan.on_rails);
  EXPECT_EQ(plan.reachable, (std::vector<std::string>{"mlx5_1", "mlx5_2"}));
  ASSERT_EQ(plan.gpus.size(), 2u);
  EXPECT_EQ(DescribeChoice(plan.gpus[0]), "0000:1b:00.0 -> mlx5_1 PHB (rail a, 10.10.0.0/16)");
  EXPECT_EQ(DescribeChoice(plan.gpus[1]), "0000:43:00.0 -> mlx5_2 PHB (rail b, 10.11.0.0/16)");
  EXPECT_EQ(plan.devices, (std::vector<std::string>{"mlx5_1", "mlx5_2"}));
  EXPECT_TRUE(AllWithin(plan));

  // The same choice is too far for a PXB profile: no GPU is served well.
  const RailPlan pxb = PlanGpuRails(TwoGpus(), Nics(), rails, "PXB");
  EXPECT_FALSE(AllWithin(pxb));
  EXPECT_FALSE(pxb.gpus[0].within);
  EXPECT_TRUE(pxb.devices.empty());
}

TEST(GpuRailsTest, ASingleRailPoolsNetworkHasNoRailName) {
  const RailPlan plan = PlanGpuRails(TwoGpus(), Nics(), {{"", "10.41.0.0/24"}}, "SYS");
  EXPECT_TRUE(plan.on_rails);
  EXPECT_EQ(DescribeChoice(plan.gpus[0]), "0000:1b:00.0 -> mlx5_3 SYS (10.41.0.0/24)");
  EXPECT_EQ(DescribeChoice(plan.gpus[1]), "0000:43:00.0 -> mlx5_3 PIX (10.41.0.0/24)");
  EXPECT_EQ(plan.devices, (std::vector<std::string>{"mlx5_3"}));
}

TEST(GpuRailsTest, ATieGoesToTheEarlierCandidateAndAGpuWithNoPathToAnyHasNone) {
  std::vector<RailGpu> gpus = {{"0000:01:00.0", {{"mlx5_2", "PXB"}, {"mlx5_1", "PXB"}}},
                               {"0000:02:00.0", {}}};
  const RailPlan plan =
      PlanGpuRails(gpus, Nics(), {{"a", "10.10.0.0/16"}, {"b", "10.11.0.0/16"}}, "PXB");
  EXPECT_EQ(plan.gpus[0].nic, "mlx5_1");
  EXPECT_EQ(plan.gpus[1].nic, "");
  EXPECT_FALSE(plan.gpus[1].within);
  EXPECT_EQ(DescribeChoice(plan.gpus[1]), "0000:02:00.0 -> no NIC with a known PCIe path");
  EXPECT_EQ(plan.devices, (std::vector<std::string>{"mlx5_1"}));
}

TEST(GpuRailsTest, PathTypesRankNearestFirstAndOthersAreIgnored) {
  EXPECT_LT(PathRank("PIX"), PathRank("PXB"));
  EXPECT_LT(PathRank("PXB"), PathRank("PHB"));
  EXPECT_LT(PathRank("PHB"), PathRank("SYS"));
  EXPECT_EQ(PathRank("pix"), -1);
  EXPECT_EQ(PathRank("NVL"), -1);
  const RailPlan plan =
      PlanGpuRails({{"0000:01:00.0", {{"mlx5_0", "NVL"}, {"mlx5_3", "PHB"}}}}, Nics(), {}, "PHB");
  EXPECT_EQ(plan.gpus[0].nic, "mlx5_3");
  EXPECT_TRUE(plan.gpus[0].within);
}

TEST(GpuRailsTest, RailNamesAreShortDnsLabels) {
  for (const char* good : {"a", "rail-a", "r0", "a-b-c", "abcdefghijklmno"}) {
    EXPECT_TRUE(IsRailName(good)) << good;
  }
  for (const char* bad : {"", "-a", "a-", "A", "rail_a", "rail.a", "abcdefghijklmnop", "a b", "a\n",
                          "..", "rail/a"}) {
    EXPECT_FALSE(IsRailName(bad)) << bad;
  }
}

TEST(GpuRailsTest, TooFarNamesTheFirstGpuBeyondTheMaximumOnRailsOnly) {
  const std::vector<RailNetwork> rails = {{"a", "10.10.0.0/16"}, {"b", "10.11.0.0/16"}};
  EXPECT_EQ(TooFar(PlanGpuRails(TwoGpus(), Nics(), rails, "PXB"), "PXB"),
            "0000:1b:00.0 -> mlx5_1 PHB (rail a, 10.10.0.0/16) is the GPU's nearest NIC on the "
            "pool's networks, farther than maxGpuNicDistance PXB");
  EXPECT_EQ(TooFar(PlanGpuRails(TwoGpus(), Nics(), rails, "PHB"), "PHB"), std::nullopt);
  // Off rails the nearest NIC's distance is the agent's gpu.nic-distance check's to judge.
  std::vector<RailGpu> far = {{"0000:01:00.0", {{"mlx5_0", "SYS"}}}};
  EXPECT_EQ(TooFar(PlanGpuRails(far, Nics(), {}, "PXB"), "PXB"), std::nullopt);
}

TEST(GpuRailsTest, NetworkIsTheAddressWithItsHostBitsCleared) {
  EXPECT_EQ(ParseIpv4Net("10.10.3.4/16")->Network(), "10.10.0.0/16");
  EXPECT_EQ(ParseIpv4Net("192.168.7.255/23")->Network(), "192.168.6.0/23");
  EXPECT_EQ(ParseIpv4Net("10.1.2.3")->Network(), "10.1.2.3/32");
  EXPECT_EQ(ParseIpv4Net("10.1.2.3/0")->Network(), "0.0.0.0/0");
}

TEST(GpuRailsTest, NetworksMatchByPrefixAndIgnoreWhatDoesNotParse) {
  const std::vector<RailNic> nics = {{"a", {"10.10.3.4/16"}}, {"b", {"10.10.3.4"}}};
  EXPECT_NE(NetworkOf(nics[0].ipv4, {{"r", "10.10.0.0/16"}}), nullptr);
  EXPECT_NE(NetworkOf(nics[1].ipv4, {{"r", "10.10.3.0/24"}}), nullptr);
  EXPECT_EQ(NetworkOf(nics[1].ipv4, {{"r", "10.10.2.0/24"}}), nullptr);
  EXPECT_NE(NetworkOf(nics[1].ipv4, {{"r", "0.0.0.0/0"}}), nullptr);
  for (const char* bad : {"10.10.0.0/33", "10.10.0.0/", "10.10.0/16", "10.10.0.0/-1", "", "x"}) {
    EXPECT_EQ(NetworkOf(nics[0].ipv4, {{"r", bad}}), nullptr) << bad;
  }
  EXPECT_EQ(NetworkOf({"10.10.0.1/99", "garbage"}, {{"r", "10.10.0.0/16"}}), nullptr);
}

}  // namespace
}  // namespace rdmastack::rails
