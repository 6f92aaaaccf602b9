// .modinfo from module files (the ELF side is lib/elf/elf_section_test.cc).
#include "node/probe/module_info.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/elf/testing/elf_image.h"

namespace rdmastack::node {
namespace {

using elf::testing::ElfWithSections;

std::string Strings(const std::vector<std::string>& entries) {
  std::string out;
  for (const auto& e : entries) out += e + '\0';
  return out;
}

StatusOr<ModuleInfo> Read(const std::string& image) {
  return ReadModuleInfo(elf::MemoryByteSource(image));
}

TEST(ModuleInfoTest, ReadsWhatModinfoPrints) {
  const auto info = Read(ElfWithSections(
      {{".text", std::string(32, '\x90')},
       {".modinfo",
        Strings({"version=535.161.08", "license=Dual BSD/GPL", "srcversion=1B1A9E6E3A8B3D2F6C0D4E5",
                 "depends=ib_core,nvidia", "name=nvidia_peermem",
                 "vermagic=5.15.0-105-generic SMP mod_unload modversions "})}}));
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->name, "nvidia_peermem");
  EXPECT_EQ(info->srcversion, "1B1A9E6E3A8B3D2F6C0D4E5");
  EXPECT_EQ(info->vermagic, "5.15.0-105-generic SMP mod_unload modversions ");
  EXPECT_EQ(info->version, "535.161.08");
}

TEST(ModuleInfoTest, WhatIsNotAModuleSaysSo) {
  EXPECT_FALSE(Read("").ok());
  EXPECT_EQ(Read(ElfWithSections({{".text", "x"}})).status().message(),
            "no .modinfo section: not a kernel module");
  EXPECT_EQ(Read(ElfWithSections({{".modinfo", Strings({"license=GPL"})}})).status().message(),
            ".modinfo has neither srcversion nor vermagic");
  // option.ko's .modinfo in Debian 12 is 76,055 bytes; a hostile one is refused past 1 MiB.
  auto aliases = Read(ElfWithSections(
      {{".modinfo", Strings({std::string(76000, 'a'), "srcversion=F00", "name=option"})}}));
  ASSERT_TRUE(aliases.ok()) << aliases.status().ToString();
  EXPECT_EQ(aliases->srcversion, "F00");
  EXPECT_EQ(Read(ElfWithSections({{".modinfo", std::string((1 << 20) + 1, 'x')}})).status().code(),
            StatusCode::kOutOfRange);
}

TEST(ModuleInfoTest, UnterminatedLastStringIsStillRead) {
  auto info = ParseModinfo(std::string("name=ib_core\0srcversion=ABC", 27));
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->srcversion, "ABC");
}

}  // namespace
}  // namespace rdmastack::node
