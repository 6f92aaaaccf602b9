// ACS from configuration space bytes, as a PCIe switch's downstream port holds them.
#include "node/probe/pci_config.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rdmastack::node {
namespace {

// 4096 bytes of configuration space with the extended capabilities `caps` (id, offset, then the
// two ACS registers when the id is ACS), each pointing at the next.
struct Cap {
  uint16_t id;
  size_t offset;
  uint16_t acs_capability = 0;
  uint16_t acs_control = 0;
};

std::string Space(const std::vector<Cap>& caps, size_t size = 4096) {
  std::string b(size, '\0');
  auto put16 = [&](size_t at, uint16_t v) {
    if (at + 2 > b.size()) return;  // a space cut short
    b[at] = static_cast<char>(v & 0xff);
    b[at + 1] = static_cast<char>(v >> 8);
  };
  for (size_t i = 0; i < caps.size(); ++i) {
    const uint32_t next = i + 1 < caps.size() ? static_cast<uint32_t>(caps[i + 1].offset) : 0;
    const uint32_t header = caps[i].id | 1u << 16 | next << 20;
    for (int k = 0; k < 4; ++k) b[caps[i].offset + k] = static_cast<char>(header >> (8 * k));
    if (caps[i].id == 0x000d) {
      put16(caps[i].offset + 4, caps[i].acs_capability);
      put16(caps[i].offset + 6, caps[i].acs_control);
    }
  }
  return b;
}

TEST(PciConfigTest, FindsAcsBehindOtherCapabilitiesAndReadsRequestRedirect) {
  // AER at 0x100, then ACS at 0x148 with SrcValid, ReqRedir, CmpltRedir and UpstreamFwd on, as
  // a Broadcom PEX downstream port leaves them under a kernel booted with pci=acs_override off.
  const auto acs = FindAcs(Space({{0x0001, 0x100}, {0x000d, 0x148, 0x005f, 0x001d}}));
  ASSERT_TRUE(acs.ok()) << acs.status().ToString();
  ASSERT_TRUE(acs->has_value());
  EXPECT_TRUE((*acs)->RequestRedirect());
  EXPECT_TRUE((*acs)->CompletionRedirect());
  EXPECT_FALSE((*acs)->EgressControl());
  EXPECT_EQ((*acs)->Describe(),
            "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");

  const auto off = FindAcs(Space({{0x000d, 0x100, 0x005f, 0x0000}}));
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE((*off)->RequestRedirect());
}

TEST(PciConfigTest, NoAcsIsNotAnError) {
  const auto none = FindAcs(Space({{0x0001, 0x100}, {0x0019, 0x140}}));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());
  const auto empty = FindAcs(std::string(4096, '\0'));  // no extended capabilities at all
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
}

TEST(PciConfigTest, WhatCannotBeTrustedIsAnError) {
  // Read without privilege: the kernel gives the first 256 bytes only.
  EXPECT_EQ(FindAcs(std::string(256, '\0')).status().code(), StatusCode::kUnavailable);
  // A list that points back at itself, one that points below 0x100, and an ACS cut short.
  std::string loop = Space({{0x0001, 0x100}, {0x0019, 0x140}});
  loop[0x140 + 2] = 0x01;  // next = 0x100: bits 31..20 of the header at 0x140
  loop[0x140 + 3] = 0x10;
  EXPECT_FALSE(FindAcs(loop).ok());
  std::string low = Space({{0x0001, 0x100}});
  low[0x103] = 0x04;  // next = 0x040
  low[0x102] = 0x01;
  EXPECT_FALSE(FindAcs(low).ok());
  EXPECT_FALSE(FindAcs(Space({{0x000d, 0x100}}, 0x106)).ok());
}

}  // namespace
}  // namespace rdmastack::node
