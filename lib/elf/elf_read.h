#pragma once
// What every reader in lib/elf starts with: fixed-size structures read through a ByteSource, and
// the ELF header checked for the one layout we read (64-bit, little-endian).

#include <elf.h>

#include <bit>
#include <cstring>
#include <string>
#include <string_view>

#include "lib/elf/elf_dynamic.h"

namespace rdmastack::elf::internal {

// ELF structures are copied byte-for-byte into host structs; that is only right on a
// little-endian host, which is every platform we ship for.
static_assert(std::endian::native == std::endian::little,
              "ELF reader assumes a little-endian host");

template <typename T>
StatusOr<T> ReadStruct(const ByteSource& source, uint64_t offset, std::string_view what) {
  StatusOr<std::string> bytes = source.ReadAt(offset, sizeof(T));
  if (!bytes.ok()) return bytes.status().WithContext(std::string(what) + " truncated");
  T value;
  std::memcpy(&value, bytes->data(), sizeof(T));
  return value;
}

// The ELF header, when the file is a 64-bit little-endian ELF file; an error that says what it is
// otherwise.
StatusOr<Elf64_Ehdr> ReadElfHeader(const ByteSource& source);

}  // namespace rdmastack::elf::internal
