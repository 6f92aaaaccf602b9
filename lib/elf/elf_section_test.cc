#include "lib/elf/elf_section.h"

#include <gtest/gtest.h>

#include <cstring>

#include "lib/elf/testing/elf_image.h"

namespace rdmastack::elf {
namespace {

using testing::ElfWithSections;

StatusOr<std::string> Section(const std::string& image, std::string_view name,
                              uint64_t max = 1 << 20) {
  return ReadElfSection(MemoryByteSource(image), name, max);
}

template <typename T>
void Patch(std::string* image, size_t at, T value) {
  std::memcpy(image->data() + at, &value, sizeof(value));
}

TEST(ElfSection, ReadsTheNamedSection) {
  const std::string image =
      ElfWithSections({{".text", "\x90\x90"}, {".modinfo", std::string("a=1\0b=2", 7)}});
  auto s = Section(image, ".modinfo");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s, std::string("a=1\0b=2", 7));
  EXPECT_EQ(Section(image, ".text").value(), "\x90\x90");
  EXPECT_EQ(Section(image, ".modinf").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Section(image, ".modinfo", 6).status().code(), StatusCode::kOutOfRange);
}

TEST(ElfSection, WhatIsNotElf64LittleEndianSaysSo) {
  EXPECT_FALSE(Section("", ".modinfo").ok());
  EXPECT_EQ(Section(std::string("\xfd"
                                "7zXZ",
                                5) +
                        std::string(100, 'x'),
                    ".modinfo")
                .status()
                .message(),
            "not an ELF file (bad magic)");
  std::string big_endian = ElfWithSections({{".modinfo", "srcversion=A"}});
  big_endian[EI_DATA] = ELFDATA2MSB;
  EXPECT_EQ(Section(big_endian, ".modinfo").status().message(), "not a little-endian ELF file");
}

// Offsets and sizes from a hostile header are checked against the file, never followed past it.
TEST(ElfSection, OffsetsOutsideTheFileAreRefusedNotFollowed) {
  const std::string image = ElfWithSections({{".modinfo", "srcversion=A"}});
  const size_t table = image.size() - 3 * sizeof(Elf64_Shdr);
  std::string past = image;
  Patch<Elf64_Off>(&past, offsetof(Elf64_Ehdr, e_shoff), image.size() - 10);
  EXPECT_EQ(Section(past, ".modinfo").status().code(), StatusCode::kInvalidArgument);
  std::string huge = image;
  Patch<Elf64_Xword>(&huge, table + sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_size),
                     uint64_t{1} << 62);
  EXPECT_EQ(Section(huge, ".modinfo", uint64_t{1} << 63).status().code(),
            StatusCode::kInvalidArgument);
  std::string count = image;
  Patch<Elf64_Half>(&count, offsetof(Elf64_Ehdr, e_shnum), 0xffff);
  EXPECT_EQ(Section(count, ".modinfo").status().code(), StatusCode::kInvalidArgument);
  std::string names = image;
  Patch<Elf64_Half>(&names, offsetof(Elf64_Ehdr, e_shstrndx), 7);
  EXPECT_EQ(Section(names, ".modinfo").status().message(), "no section-name table");
  for (size_t n = 0; n < image.size(); ++n) (void)Section(image.substr(0, n), ".modinfo");
}

// e_shnum 0 and e_shstrndx SHN_XINDEX: the real values are in section 0 (gABI).
TEST(ElfSection, ExtendedSectionNumberingIsFollowed) {
  std::string image = ElfWithSections({{".modinfo", "srcversion=A"}});
  const size_t table = image.size() - 3 * sizeof(Elf64_Shdr);
  Patch<Elf64_Half>(&image, offsetof(Elf64_Ehdr, e_shnum), 0);
  Patch<Elf64_Half>(&image, offsetof(Elf64_Ehdr, e_shstrndx), SHN_XINDEX);
  Patch<Elf64_Xword>(&image, table + offsetof(Elf64_Shdr, sh_size), 3);
  Patch<Elf64_Word>(&image, table + offsetof(Elf64_Shdr, sh_link), 2);
  EXPECT_EQ(Section(image, ".modinfo").value(), "srcversion=A");
}

}  // namespace
}  // namespace rdmastack::elf
