#pragma once
// What a kernel module file says of itself: the key=value strings of its ELF section ".modinfo"
// (what `modinfo FILE` prints). The agent compares a module on disk with the one loaded
// (/sys/module/<name>/srcversion): after a driver upgrade that has not been followed by a reload,
// they differ, and the next load of nvidia_peermem meets an ib_core whose symbols it was not built
// against ("Unknown symbol ib_register_peer_memory_client (err -22)" in the field).
//
// The file comes from the host: it is read through lib/elf's bounded section reader, only the
// headers and .modinfo. Only uncompressed 64-bit little-endian ELF (x86-64 and arm64 modules); a
// .ko.xz or .ko.zst is for the caller to report as not read.

#include <string>
#include <string_view>

#include "base/status.h"
#include "lib/elf/elf_dynamic.h"

namespace rdmastack::node {

struct ModuleInfo {
  std::string name;        // name=nvidia_peermem
  std::string srcversion;  // srcversion=8D9C1D1B5B2A6E0F4C1E2A3
  std::string vermagic;    // vermagic=5.15.0-105-generic SMP mod_unload modversions
  std::string version;     // version=..., "" when the module has none
};

// The NUL-separated strings of a .modinfo section. InvalidArgument when they carry neither
// srcversion nor vermagic.
StatusOr<ModuleInfo> ParseModinfo(std::string_view strings);

// A module file's .modinfo (at most 1 MiB of it). NotFound: an ELF file without .modinfo.
StatusOr<ModuleInfo> ReadModuleInfo(const elf::ByteSource& file);

}  // namespace rdmastack::node
