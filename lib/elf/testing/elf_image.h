#pragma once
// Test-only: a minimal ELF64 little-endian image with the named sections (a relocatable object as
// a kernel module is), for readers' tests and fuzz seeds.

#include <elf.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace rdmastack::elf::testing {

// Layout: ELF header, the sections' bytes in order, the section-name table, then the section
// headers (the null section, `sections` in order, .shstrtab last).
inline std::string ElfWithSections(
    const std::vector<std::pair<std::string, std::string>>& sections) {
  std::string names(1, '\0');
  std::string data;
  std::vector<Elf64_Shdr> headers(1);  // the null section
  for (const auto& [name, body] : sections) {
    Elf64_Shdr h{};
    h.sh_name = static_cast<Elf64_Word>(names.size());
    h.sh_type = SHT_PROGBITS;
    h.sh_offset = sizeof(Elf64_Ehdr) + data.size();
    h.sh_size = body.size();
    headers.push_back(h);
    names += name + '\0';
    data += body;
  }
  Elf64_Shdr strtab{};
  strtab.sh_name = static_cast<Elf64_Word>(names.size());
  names += std::string(".shstrtab") + '\0';
  strtab.sh_type = SHT_STRTAB;
  strtab.sh_offset = sizeof(Elf64_Ehdr) + data.size();
  strtab.sh_size = names.size();
  headers.push_back(strtab);
  data += names;

  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_REL;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shoff = sizeof(Elf64_Ehdr) + data.size();
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = static_cast<Elf64_Half>(headers.size());
  eh.e_shstrndx = static_cast<Elf64_Half>(headers.size() - 1);

  std::string out(reinterpret_cast<const char*>(&eh), sizeof(eh));
  out += data;
  out.append(reinterpret_cast<const char*>(headers.data()), headers.size() * sizeof(Elf64_Shdr));
  return out;
}

}  // namespace rdmastack::elf::testing
