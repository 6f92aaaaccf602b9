// Fuzz target: the ELF readers must turn any byte string into names, a section or an error, never
// a crash, hang or out-of-bounds read (the launcher runs them on files from other images, the
// agent on kernel modules from the host).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "lib/elf/elf_dynamic.h"
#include "lib/elf/elf_section.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rdmastack::elf::MemoryByteSource source(std::string(reinterpret_cast<const char*>(data), size));
  auto names = rdmastack::elf::ReadElfDynamicNames(source);
  if (names.ok()) {
    size_t total = names->soname.size();
    for (const std::string& n : names->needed) total += n.size();
    (void)total;
  }
  auto section = rdmastack::elf::ReadElfSection(source, ".modinfo", 4096);
  if (section.ok() && section->size() > 4096) std::abort();  // the bound held
  return 0;
}
