#pragma once
// Reads one named section of an ELF64 file through its section headers (what `readelf -S` lists):
// a kernel module's ".modinfo" (node/probe/module_info.h) without loading or decompressing
// anything else of a file that can be tens of MiB (nvidia.ko).

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/elf/elf_dynamic.h"

namespace rdmastack::elf {

// The bytes of the first section called `name`. NotFound when the file has none (or no section
// headers); OutOfRange when it is larger than `max_bytes`; InvalidArgument, naming what is wrong,
// when the headers are malformed or point past the end of the file.
StatusOr<std::string> ReadElfSection(const ByteSource& source, std::string_view name,
                                     uint64_t max_bytes);

}  // namespace rdmastack::elf
