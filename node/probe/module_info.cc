#include "node/probe/module_info.h"

#include <cstdint>

namespace rdmastack::node {
namespace {

uint64_t Le(std::string_view b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(b[at + i]);
  return v;
}

struct Section {
  uint64_t name = 0;  // offset in the section-name table
  uint64_t offset = 0;
  uint64_t size = 0;
};

// The section header `index`, when it lies within the file.
StatusOr<Section> ReadSection(std::string_view elf, uint64_t table, uint64_t entry_size,
                              uint64_t index) {
  const uint64_t at = table + index * entry_size;
  if (at + 64 > elf.size()) return InvalidArgumentError("section header past the end of the file");
  Section s{Le(elf, at, 4), Le(elf, at + 24, 8), Le(elf, at + 32, 8)};
  if (s.offset > elf.size() || s.size > elf.size() - s.offset) {
    return InvalidArgumentError("a section runs past the end of the file");
  }
  return s;
}

void Assign(std::string_view entry, ModuleInfo* info) {
  const size_t eq = entry.find('=');
  if (eq == std::string_view::npos) return;
  const std::string_view key = entry.substr(0, eq), value = entry.substr(eq + 1);
  if (key == "name") info->name = value;
  if (key == "srcversion") info->srcversion = value;
  if (key == "vermagic") info->vermagic = value;
  if (key == "version") info->version = value;
}

}  // namespace

StatusOr<ModuleInfo> ParseModuleInfo(std::string_view elf) {
  if (elf.size() < 64 || elf.substr(0, 4) !=
                             "\x7f"
                             "ELF") {
    return InvalidArgumentError("not an ELF file");
  }
  if (elf[4] != 2 || elf[5] != 1) {
    return InvalidArgumentError("not a 64-bit little-endian ELF file");
  }
  const uint64_t table = Le(elf, 0x28, 8);
  const uint64_t entry_size = Le(elf, 0x3a, 2);
  const uint64_t count = Le(elf, 0x3c, 2);
  const uint64_t names_index = Le(elf, 0x3e, 2);
  if (entry_size < 64 || count == 0 || names_index >= count || table > elf.size() ||
      count > (elf.size() - table) / entry_size) {
    return InvalidArgumentError("the section header table does not fit the file");
  }
  RDMASTACK_ASSIGN_OR_RETURN(const Section names, ReadSection(elf, table, entry_size, names_index));
  const std::string_view name_table = elf.substr(names.offset, names.size);
  for (uint64_t i = 0; i < count; ++i) {
    RDMASTACK_ASSIGN_OR_RETURN(const Section s, ReadSection(elf, table, entry_size, i));
    if (s.name >= name_table.size()) continue;
    const std::string_view rest = name_table.substr(s.name);
    if (rest.substr(0, rest.find('\0')) != ".modinfo") continue;
    ModuleInfo info;
    std::string_view strings = elf.substr(s.offset, s.size);
    while (!strings.empty()) {
      const size_t end = strings.find('\0');
      Assign(strings.substr(0, end), &info);
      if (end == std::string_view::npos) break;
      strings.remove_prefix(end + 1);
    }
    if (info.srcversion.empty() && info.vermagic.empty()) {
      return InvalidArgumentError(".modinfo has neither srcversion nor vermagic");
    }
    return info;
  }
  return NotFoundError("no .modinfo section: not a kernel module");
}

}  // namespace rdmastack::node
