#include "lib/elf/elf_section.h"

#include <elf.h>

#include <vector>

#include "lib/elf/elf_read.h"

namespace rdmastack::elf {
namespace {

using internal::ReadStruct;

// Bounds no real file comes near (a kernel module has a few dozen sections and a section-name
// table of a few KiB); they keep a hostile header from making us read or allocate much.
constexpr uint64_t kMaxSections = 1 << 16;
constexpr uint64_t kMaxSectionNameBytes = 1 << 20;

struct SectionTable {
  uint64_t offset = 0;
  uint64_t count = 0;
  uint64_t names_index = 0;
};

// Where the section headers are and how many; the extended numbering (e_shnum 0, e_shstrndx
// SHN_XINDEX: the real values in section 0) is followed as the gABI says.
StatusOr<SectionTable> FindSectionTable(const ByteSource& source) {
  RDMASTACK_ASSIGN_OR_RETURN(Elf64_Ehdr eh, internal::ReadElfHeader(source));
  if (eh.e_shoff == 0) return NotFoundError("no section headers");
  if (eh.e_shentsize != sizeof(Elf64_Shdr)) {
    return InvalidArgumentError("section header size " + std::to_string(eh.e_shentsize) + ", not " +
                                std::to_string(sizeof(Elf64_Shdr)));
  }
  SectionTable t{eh.e_shoff, eh.e_shnum, eh.e_shstrndx};
  if (t.count == 0 || t.names_index == SHN_XINDEX) {
    RDMASTACK_ASSIGN_OR_RETURN(Elf64_Shdr first,
                               ReadStruct<Elf64_Shdr>(source, t.offset, "section header 0"));
    if (t.count == 0) t.count = first.sh_size;
    if (t.names_index == SHN_XINDEX) t.names_index = first.sh_link;
  }
  if (t.count == 0) return NotFoundError("no section headers");
  if (t.count > kMaxSections) return InvalidArgumentError("implausibly many sections");
  if (t.names_index >= t.count) return InvalidArgumentError("no section-name table");
  return t;
}

StatusOr<std::string> SectionBytes(const ByteSource& source, const Elf64_Shdr& s,
                                   std::string_view what) {
  if (s.sh_type == SHT_NOBITS) return std::string();
  StatusOr<std::string> bytes = source.ReadAt(s.sh_offset, s.sh_size);
  if (!bytes.ok())
    return InvalidArgumentError(std::string(what) + " runs past the end of the file");
  return bytes;
}

}  // namespace

StatusOr<std::string> ReadElfSection(const ByteSource& source, std::string_view name,
                                     uint64_t max_bytes) {
  RDMASTACK_ASSIGN_OR_RETURN(const SectionTable t, FindSectionTable(source));
  StatusOr<std::string> table = source.ReadAt(t.offset, t.count * sizeof(Elf64_Shdr));
  if (!table.ok()) return InvalidArgumentError("the section header table runs past the end");
  std::vector<Elf64_Shdr> headers(t.count);
  std::memcpy(headers.data(), table->data(), table->size());

  const Elf64_Shdr& names_header = headers[t.names_index];
  if (names_header.sh_size > kMaxSectionNameBytes) {
    return InvalidArgumentError("implausibly large section-name table");
  }
  RDMASTACK_ASSIGN_OR_RETURN(const std::string names,
                             SectionBytes(source, names_header, "the section-name table"));
  for (const Elf64_Shdr& s : headers) {
    if (s.sh_name >= names.size()) continue;
    const size_t end = names.find('\0', s.sh_name);
    if (end == std::string::npos ||
        std::string_view(names).substr(s.sh_name, end - s.sh_name) != name)
      continue;
    if (s.sh_size > max_bytes) {
      return OutOfRangeError(std::string(name) + " is " + std::to_string(s.sh_size) +
                             " bytes, more than " + std::to_string(max_bytes));
    }
    return SectionBytes(source, s, name);
  }
  return NotFoundError("no " + std::string(name) + " section");
}

}  // namespace rdmastack::elf
