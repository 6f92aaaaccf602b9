#include "lib/elf/elf_dynamic.h"

#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "gateway/launcher/test_paths.h"

namespace rdmastack::elf {
namespace {

std::string FixturePath(const std::string& rel) {
  return gateway::testing::ElfFixture(rel);
}

TEST(ElfDynamic, ReadsSonameOfBuiltLibraries) {
  for (auto [file, soname] :
       {std::pair{"lib-v1/libcuobjserver.so.1.2.0.68", "libcuobjserver.so.1"},
        std::pair{"lib-v2/libcuobjserver.so.2.0.0.109", "libcuobjserver.so.2"}}) {
    StatusOr<ElfDynamicNames> names = ReadElfDynamicNamesFromFile(FixturePath(file));
    ASSERT_TRUE(names.ok()) << names.status().ToString();
    EXPECT_EQ(names->soname, soname);
  }
}

TEST(ElfDynamic, ReadsNeededOfBuiltExecutables) {
  for (auto [file, needed] : {std::pair{"bin/fake_vgwrdma_v1", "libcuobjserver.so.1"},
                              std::pair{"bin/fake_vgwrdma_v2", "libcuobjserver.so.2"}}) {
    StatusOr<ElfDynamicNames> names = ReadElfDynamicNamesFromFile(FixturePath(file));
    ASSERT_TRUE(names.ok()) << names.status().ToString();
    EXPECT_EQ(names->soname, "");
    EXPECT_NE(std::find(names->needed.begin(), names->needed.end(), needed), names->needed.end());
    EXPECT_NE(std::find(names->needed.begin(), names->needed.end(), "libc.so.6"),
              names->needed.end());
  }
}

TEST(ElfDynamic, MissingFileIsNotFoundWithPath) {
  StatusOr<ElfDynamicNames> names = ReadElfDynamicNamesFromFile("/nonexistent/libx.so.1");
  ASSERT_FALSE(names.ok());
  EXPECT_EQ(names.status().code(), StatusCode::kNotFound);
  EXPECT_NE(names.status().message().find("/nonexistent/libx.so.1"), std::string::npos);
}

// A synthetic ELF64 image: header, a PT_LOAD covering the whole file, a PT_DYNAMIC, the dynamic
// entries and a string table. `mutate` damages it for the negative cases.
std::string SyntheticElf(const std::function<void(std::string&)>& mutate = nullptr) {
  const std::string strtab = std::string("\0libfoo.so.3\0libc.so.6\0", 23);
  constexpr size_t kPh = sizeof(Elf64_Ehdr);
  constexpr size_t kDyn = kPh + 2 * sizeof(Elf64_Phdr);
  const Elf64_Dyn dyns[] = {
      {DT_SONAME, {1}}, {DT_NEEDED, {13}}, {DT_STRTAB, {0}}, {DT_STRSZ, {23}}, {DT_NULL, {0}}};
  const size_t str_off = kDyn + sizeof(dyns);
  std::string img(str_off + strtab.size(), '\0');

  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_type = ET_DYN;
  eh.e_phoff = kPh;
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = 2;
  std::memcpy(img.data(), &eh, sizeof(eh));
  Elf64_Phdr load{};
  load.p_type = PT_LOAD;
  load.p_filesz = load.p_memsz = img.size();
  Elf64_Phdr dyn{};
  dyn.p_type = PT_DYNAMIC;
  dyn.p_offset = dyn.p_vaddr = kDyn;
  dyn.p_filesz = sizeof(dyns);
  std::memcpy(img.data() + kPh, &load, sizeof(load));
  std::memcpy(img.data() + kPh + sizeof(load), &dyn, sizeof(dyn));
  Elf64_Dyn fixed[5];
  std::memcpy(fixed, dyns, sizeof(dyns));
  fixed[2].d_un.d_ptr = str_off;
  std::memcpy(img.data() + kDyn, fixed, sizeof(fixed));
  std::memcpy(img.data() + str_off, strtab.data(), strtab.size());
  if (mutate) mutate(img);
  return img;
}

TEST(ElfDynamic, ParsesSyntheticImage) {
  StatusOr<ElfDynamicNames> names = ReadElfDynamicNames(MemoryByteSource(SyntheticElf()));
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  EXPECT_EQ(names->soname, "libfoo.so.3");
  EXPECT_EQ(names->needed, std::vector<std::string>{"libc.so.6"});
}

TEST(ElfDynamic, FuzzCorpusSeedIsAValidImage) {
  StatusOr<ElfDynamicNames> names = ReadElfDynamicNamesFromFile(
      testing::SourceDir() + "/tests/fixtures/gateway/fuzz/elf/synthetic-dyn.bin");
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  EXPECT_EQ(names->soname, "libfoo.so.3");
  EXPECT_EQ(names->needed, std::vector<std::string>{"libcuobjserver.so.1"});
}

TEST(ElfDynamic, MalformedImagesAreErrorsNotCrashes) {
  struct Case {
    const char* name;
    std::function<void(std::string&)> mutate;
    const char* want;
  };
  const Case cases[] = {
      {"empty", [](std::string& s) { s.clear(); }, "ELF header truncated"},
      {"bad magic", [](std::string& s) { s[1] = 'X'; }, "bad magic"},
      {"32-bit", [](std::string& s) { s[EI_CLASS] = ELFCLASS32; }, "not a 64-bit"},
      {"big endian", [](std::string& s) { s[EI_DATA] = ELFDATA2MSB; }, "little-endian"},
      {"phdrs cut off", [](std::string& s) { s.resize(sizeof(Elf64_Ehdr) + 10); },
       "program header truncated"},
      {"strtab cut off", [](std::string& s) { s.resize(s.size() - 5); }, "DT_STRTAB"},
      {"unterminated", [](std::string& s) { s.back() = 'x'; }, "unterminated"},
  };
  for (const Case& c : cases) {
    StatusOr<ElfDynamicNames> names = ReadElfDynamicNames(MemoryByteSource(SyntheticElf(c.mutate)));
    ASSERT_FALSE(names.ok()) << c.name;
    EXPECT_NE(names.status().message().find(c.want), std::string::npos)
        << c.name << ": " << names.status().ToString();
  }
}

TEST(ElfDynamic, EveryTruncationIsHandled) {
  const std::string full = SyntheticElf();
  for (size_t len = 0; len < full.size(); ++len) {
    StatusOr<ElfDynamicNames> names = ReadElfDynamicNames(MemoryByteSource(full.substr(0, len)));
    EXPECT_FALSE(names.ok() && names->soname == "libfoo.so.3" && names->needed.size() == 1)
        << "truncated image at " << len << " parsed as complete";
  }
}

}  // namespace
}  // namespace rdmastack::elf
