// Fuzz target: the ELF reader must turn any byte string into names or an error, never a crash,
// hang or out-of-bounds read (the launcher runs it on files from other images).
#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/elf/elf_dynamic.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rdmastack::gateway::MemoryByteSource source(
      std::string(reinterpret_cast<const char*>(data), size));
  auto names = rdmastack::gateway::ReadElfDynamicNames(source);
  if (names.ok()) {
    size_t total = names->soname.size();
    for (const std::string& n : names->needed) total += n.size();
    (void)total;
  }
  return 0;
}
