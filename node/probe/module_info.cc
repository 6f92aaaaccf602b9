#include "node/probe/module_info.h"

#include "lib/elf/elf_section.h"

namespace rdmastack::node {
namespace {

// A module's aliases (one per device ID it drives) are in .modinfo too: the largest of Debian 12's
// kernel 6.1 is option.ko's, 76,055 bytes. 1 MiB leaves room and still bounds a hostile file.
constexpr uint64_t kMaxModinfoBytes = 1 << 20;

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

StatusOr<ModuleInfo> ParseModinfo(std::string_view strings) {
  ModuleInfo info;
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

StatusOr<ModuleInfo> ReadModuleInfo(const elf::ByteSource& file) {
  StatusOr<std::string> section = elf::ReadElfSection(file, ".modinfo", kMaxModinfoBytes);
  if (section.status().code() == StatusCode::kNotFound) {
    return NotFoundError("no .modinfo section: not a kernel module");
  }
  if (!section.ok()) return section.status();
  return ParseModinfo(*section);
}

}  // namespace rdmastack::node
