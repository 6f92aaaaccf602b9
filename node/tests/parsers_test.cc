#include "node/probe/parsers.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "base/quantity.h"

namespace rdmastack::node {
namespace {

constexpr const char* kA6000Resource =
    "0x00000000c5000000 0x00000000c5ffffff 0x0000000000040200\n"
    "0x000021ff00000000 0x000021ff0fffffff 0x000000000014220c\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    "0x000021ff10000000 0x000021ff11ffffff 0x000000000014220c\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    "0x0000000000007000 0x000000000000707f 0x0000000000040101\n"
    "0x00000000c6000000 0x00000000c607ffff 0x0000000000046200\n";

TEST(CounterTest, SixtyFourUnsignedBitsAndNothingElse) {
  EXPECT_EQ(ParseCounter("0\n").value(), 0u);
  EXPECT_EQ(ParseCounter("18446744073709551615\n").value(), 18446744073709551615u);
  EXPECT_FALSE(ParseCounter("18446744073709551616").ok());  // past 64 bits
  EXPECT_FALSE(ParseCounter("-1").ok());
  EXPECT_FALSE(ParseCounter("").ok());
  EXPECT_FALSE(ParseCounter("12 packets").ok());
  EXPECT_FALSE(ParseCounter("0x10").ok());
}

TEST(PciResourceTest, A6000Bar1IsLineOneAnd256MiB) {
  auto lines = ParsePciResource(kA6000Resource);
  ASSERT_TRUE(lines.ok()) << lines.status().ToString();
  ASSERT_EQ(lines->size(), 7u);
  auto bar1 = FindGpuBar1(*lines);
  ASSERT_TRUE(bar1.ok());
  EXPECT_EQ(bar1->index, 1);
  EXPECT_EQ(bar1->size, 256u << 20);
  EXPECT_TRUE(bar1->expected_flags);
}

TEST(PciResourceTest, SixtyFourBitBar0MovesApertureToLineTwo) {
  // BAR0 64-bit (registers 0-1), framebuffer aperture at register 2, 32 MiB BAR at 4.
  auto lines = ParsePciResource(
      "0x00002d0000000000 0x00002d0000ffffff 0x0000000000140204\n"
      "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
      "0x00002c0000000000 0x00002c1fffffffff 0x000000000014220c\n"
      "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
      "0x00002d0002000000 0x00002d0003ffffff 0x000000000014220c\n");
  ASSERT_TRUE(lines.ok());
  auto bar1 = FindGpuBar1(*lines);
  ASSERT_TRUE(bar1.ok());
  EXPECT_EQ(bar1->index, 2);
  EXPECT_EQ(bar1->size, 128ull << 30);
}

TEST(PciResourceTest, UnexpectedLayoutFallsBackToLargestPrefetchableWithNote) {
  // The BAR after BAR0 is 32-bit non-prefetchable; the aperture sits further on.
  auto lines = ParsePciResource(
      "0x00000000a0000000 0x00000000a0ffffff 0x0000000000040200\n"
      "0x00000000b0000000 0x00000000b000ffff 0x0000000000040200\n"
      "0x0000300000000000 0x000030003fffffff 0x000000000014220c\n"
      "0x0000000000000000 0x0000000000000000 0x0000000000000000\n");
  ASSERT_TRUE(lines.ok());
  auto bar1 = FindGpuBar1(*lines);
  ASSERT_TRUE(bar1.ok());
  EXPECT_EQ(bar1->index, 2);
  EXPECT_EQ(bar1->size, 1ull << 30);
  EXPECT_FALSE(bar1->note.empty());
}

TEST(PciResourceTest, RejectsMalformedLines) {
  EXPECT_FALSE(ParsePciResource("").ok());
  EXPECT_FALSE(ParsePciResource("0x1 0x2\n").ok());
  EXPECT_FALSE(ParsePciResource("0x1 zz 0x200\n").ok());
  EXPECT_FALSE(ParsePciResource("0x20 0x10 0x200\n").ok());              // end before start
  EXPECT_FALSE(ParsePciResource("0x00000000000000001 0x2 0x3\n").ok());  // 17 hex digits
  auto only_io = ParsePciResource("0x7000 0x707f 0x40101\n");
  ASSERT_TRUE(only_io.ok());
  EXPECT_FALSE(FindGpuBar1(*only_io).ok());
}

TEST(GidTest, ParsesAndFormatsSysfsForm) {
  auto gid = ParseGid("fe80:0000:0000:0000:b83f:d203:00a1:b2c0\n");
  ASSERT_TRUE(gid.ok());
  EXPECT_TRUE(GidIsLinkLocal(*gid));
  EXPECT_FALSE(GidIsZero(*gid));
  EXPECT_EQ(FormatGid(*gid), "fe80:0000:0000:0000:b83f:d203:00a1:b2c0");
  EXPECT_TRUE(GidIsZero(*ParseGid("0000:0000:0000:0000:0000:0000:0000:0000")));
  EXPECT_FALSE(ParseGid("fe80::1").ok());
  EXPECT_FALSE(ParseGid("fe80:0000:0000:0000:b83f:d203:00a1:b2cg").ok());
  EXPECT_FALSE(ParseGid("fe80:0000:0000:0000:b83f:d203:00a1").ok());
}

TEST(GidTest, Ipv4MappedGidMatchesKernelForm) {
  EXPECT_EQ(*Ipv4MappedGid("192.168.50.21"), "0000:0000:0000:0000:0000:ffff:c0a8:3215");
  EXPECT_EQ(*Ipv4MappedGid("192.168.60.21"), "0000:0000:0000:0000:0000:ffff:c0a8:3c15");
  EXPECT_FALSE(Ipv4MappedGid("192.168.60").ok());
  EXPECT_FALSE(Ipv4MappedGid("192.168.60.256").ok());
}

TEST(GidTest, IpoibAddressCarriesPortGidInBytesFourToNineteen) {
  auto gid = GidFromIpoibAddress("00:00:10:29:fe:80:00:00:00:00:00:00:b8:3f:d2:03:00:a1:b2:c0");
  ASSERT_TRUE(gid.ok());
  EXPECT_EQ(FormatGid(*gid), "fe80:0000:0000:0000:b83f:d203:00a1:b2c0");
  EXPECT_FALSE(GidFromIpoibAddress("b8:3f:d2:12:34:56").ok());
}

TEST(StateTest, NumberedStates) {
  auto s = ParseNumberedState("4: ACTIVE\n");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->code, 4);
  EXPECT_EQ(s->name, "ACTIVE");
  EXPECT_EQ(ParseNumberedState("5: LinkUp")->name, "LinkUp");
  EXPECT_FALSE(ParseNumberedState("ACTIVE").ok());
  EXPECT_FALSE(ParseNumberedState("x: ACTIVE").ok());
  EXPECT_FALSE(ParseNumberedState("4:").ok());
}

TEST(ModulesTest, ProcModules) {
  auto mods = ParseProcModules(
      "nvidia_peermem 16384 0 - Live 0xffffffffc0a00000 (POE)\n"
      "ib_core 458752 8 rdma_ucm,ib_uverbs,mlx5_ib, Live 0xffffffffc0900000\n");
  ASSERT_TRUE(mods.ok());
  ASSERT_EQ(mods->size(), 2u);
  EXPECT_EQ((*mods)[0].name, "nvidia_peermem");
  EXPECT_EQ((*mods)[1].used_by, (std::vector<std::string>{"rdma_ucm", "ib_uverbs", "mlx5_ib"}));
  EXPECT_FALSE(ParseProcModules("ib_core notanumber 0 - Live 0x0\n").ok());
  EXPECT_FALSE(ParseProcModules("ib_core\n").ok());
}

TEST(ModulesTest, OfedVersionShapes) {
  EXPECT_EQ(ParseOfedVersion("23.10-1.1.9")->major, 23);
  EXPECT_EQ(ParseOfedVersion("5.8-1.0.1")->minor, 8);
  EXPECT_EQ(ParseOfedVersion("25.01-0.6.0")->text, "25.01-0.6.0");
  EXPECT_FALSE(ParseOfedVersion("5.14.0-427.el9").has_value());
  EXPECT_FALSE(ParseOfedVersion("").has_value());
  EXPECT_FALSE(ParseOfedVersion("abc").has_value());
}

TEST(KernelTest, Releases) {
  EXPECT_EQ(ParseKernelRelease("5.15.0-105-generic")->minor, 15);
  EXPECT_EQ(ParseKernelRelease("4.18.0-513.5.1.el8_9.x86_64")->major, 4);
  EXPECT_EQ(ParseKernelRelease("6.8.0-45-generic")->major, 6);
  EXPECT_EQ(ParseKernelRelease("6.12rc1")->minor, 12);
  EXPECT_FALSE(ParseKernelRelease("linux").ok());
}

TEST(NvidiaVersionTest, OpenVsProprietary) {
  auto open = ParseNvidiaVersionFile(
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.124.06  Release Build  "
      "(dvs-builder@U16)  Fri "
      "Feb 28 23:41:19 UTC 2025\nGCC version: gcc 12\n");
  ASSERT_TRUE(open.ok());
  EXPECT_TRUE(open->open);
  EXPECT_EQ(open->version, "570.124.06");
  auto prop = ParseNvidiaVersionFile(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.161.08  Tue Mar  5 2024");
  ASSERT_TRUE(prop.ok());
  EXPECT_FALSE(prop->open);
  EXPECT_EQ(prop->version, "535.161.08");
  auto arm = ParseNvidiaVersionFile(
      "NVRM version: NVIDIA UNIX Kernel Module for aarch64  550.90.07  Release Build");
  EXPECT_EQ(arm->version, "550.90.07");
  EXPECT_FALSE(ParseNvidiaVersionFile("garbage").ok());
}

TEST(QuantityTest, ByteQuantities) {
  EXPECT_EQ(*ParseByteQuantity("192Mi"), 192LL << 20);
  EXPECT_EQ(*ParseByteQuantity("1Gi"), 1LL << 30);
  EXPECT_EQ(*ParseByteQuantity("256M"), 256000000);
  EXPECT_EQ(*ParseByteQuantity("1048576"), 1048576);
  EXPECT_FALSE(ParseByteQuantity("12Qi").ok());
  EXPECT_FALSE(ParseByteQuantity("Mi").ok());
  EXPECT_FALSE(ParseByteQuantity("99999999999999999Ti").ok());
  // The project's one quantity parser: Kubernetes has no K suffix, and sizes are not negative.
  EXPECT_FALSE(ParseByteQuantity("256K").ok());
  EXPECT_EQ(*ParseByteQuantity("256k"), 256000);
  EXPECT_FALSE(ParseByteQuantity("-1Mi").ok());
  EXPECT_EQ(FormatBytes(224LL << 20), "224Mi");
  EXPECT_EQ(FormatBytes(128LL << 30), "128Gi");
  EXPECT_EQ(FormatBytes(1000), "1000");
  EXPECT_EQ(FormatBytes(137432662016LL), "131066Mi");
  EXPECT_EQ(FormatBytes(268433792LL * 1024), "255.998Gi");  // an H200's NVML BAR1 free
}

}  // namespace
}  // namespace rdmastack::node

namespace rdmastack::node {
namespace {

TEST(SplitNonEmptyTest, SkipsEmptyPiecesAtEitherEndAndBetween) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(SplitNonEmpty("/sys//bus/pci/", '/'), (V{"sys", "bus", "pci"}));
  EXPECT_EQ(SplitNonEmpty("eth0 eth1", ' '), (V{"eth0", "eth1"}));
  EXPECT_EQ(SplitNonEmpty("one\n\ntwo\n", '\n'), (V{"one", "two"}));
  EXPECT_TRUE(SplitNonEmpty("", '/').empty());
  EXPECT_TRUE(SplitNonEmpty("///", '/').empty());
}

TEST(NaturalLessTest, NumbersCompareAsNumbers) {
  std::vector<std::string> names = {"mlx5_10", "mlx5_2",  "mlx5_1", "mlx5_0",
                                    "mlx5_11", "ibp24s0", "mlx4_0", "mlx5_9"};
  std::sort(names.begin(), names.end(), NaturalLess);
  EXPECT_EQ(names, (std::vector<std::string>{"ibp24s0", "mlx4_0", "mlx5_0", "mlx5_1", "mlx5_2",
                                             "mlx5_9", "mlx5_10", "mlx5_11"}));
  EXPECT_FALSE(NaturalLess("mlx5_1", "mlx5_1"));
  EXPECT_TRUE(NaturalLess("mlx5", "mlx5_0"));
  EXPECT_TRUE(NaturalLess("a99999999999999999999998", "a99999999999999999999999"));
  EXPECT_FALSE(NaturalLess("a010", "a9"));
}

}  // namespace
}  // namespace rdmastack::node
