// .modinfo from module files: a minimal ELF64 built here with the sections a module has.
#include "node/probe/module_info.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rdmastack::node {
namespace {

void Put(std::string* b, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) (*b)[at + i] = static_cast<char>(v >> (8 * i));
}

// An ELF64 little-endian file with a section-name table and the sections `sections` (name,
// contents), in that order after the null section.
std::string Elf(const std::vector<std::pair<std::string, std::string>>& sections) {
  std::string names(1, '\0');
  std::vector<size_t> name_at;
  for (const auto& [name, body] : sections) {
    name_at.push_back(names.size());
    names += name + '\0';
  }
  const size_t shstrtab_name = names.size();
  names += std::string(".shstrtab") + '\0';
  std::string data;
  std::vector<size_t> data_at;
  for (const auto& [name, body] : sections) {
    data_at.push_back(64 + data.size());
    data += body;
  }
  const size_t names_at = 64 + data.size();
  data += names;
  const size_t table = 64 + data.size();
  const size_t count = sections.size() + 2;
  std::string b(table + count * 64, '\0');
  b.replace(0, 4,
            "\x7f"
            "ELF");
  b[4] = 2;  // 64-bit
  b[5] = 1;  // little-endian
  Put(&b, 0x28, table, 8);
  Put(&b, 0x3a, 64, 2);
  Put(&b, 0x3c, count, 2);
  Put(&b, 0x3e, count - 1, 2);
  b.replace(64, data.size(), data);
  for (size_t i = 0; i < sections.size(); ++i) {
    const size_t h = table + (i + 1) * 64;
    Put(&b, h, name_at[i], 4);
    Put(&b, h + 24, data_at[i], 8);
    Put(&b, h + 32, sections[i].second.size(), 8);
  }
  const size_t h = table + (count - 1) * 64;
  Put(&b, h, shstrtab_name, 4);
  Put(&b, h + 24, names_at, 8);
  Put(&b, h + 32, names.size(), 8);
  return b;
}

std::string Strings(const std::vector<std::string>& entries) {
  std::string out;
  for (const auto& e : entries) out += e + '\0';
  return out;
}

TEST(ModuleInfoTest, ReadsWhatModinfoPrints) {
  const auto info = ParseModuleInfo(Elf(
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
  EXPECT_FALSE(ParseModuleInfo("").ok());
  EXPECT_FALSE(ParseModuleInfo(std::string("\xfd"
                                           "7zXZ",
                                           5) +
                               std::string(100, 'x'))
                   .ok());
  EXPECT_EQ(ParseModuleInfo(Elf({{".text", "x"}})).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(ParseModuleInfo(Elf({{".modinfo", Strings({"license=GPL"})}})).ok());
  std::string big_endian = Elf({{".modinfo", Strings({"srcversion=A"})}});
  big_endian[5] = 2;
  EXPECT_FALSE(ParseModuleInfo(big_endian).ok());
}

TEST(ModuleInfoTest, OffsetsOutsideTheFileAreRefusedNotFollowed) {
  std::string elf = Elf({{".modinfo", Strings({"srcversion=A"})}});
  std::string past = elf;
  Put(&past, 0x28, elf.size() - 10, 8);  // the header table starts near the end
  EXPECT_FALSE(ParseModuleInfo(past).ok());
  std::string huge = elf;
  const size_t table = elf.size() - 3 * 64;
  Put(&huge, table + 64 + 32, uint64_t{1} << 62, 8);  // .modinfo's size
  EXPECT_FALSE(ParseModuleInfo(huge).ok());
  std::string count = elf;
  Put(&count, 0x3c, 0xffff, 2);
  EXPECT_FALSE(ParseModuleInfo(count).ok());
  // Every prefix of a good file is refused or read, never read past.
  for (size_t n = 0; n < elf.size(); ++n) (void)ParseModuleInfo(std::string_view(elf).substr(0, n));
}

}  // namespace
}  // namespace rdmastack::node
