#pragma once
// Reads the dynamic-linking names of an ELF64 file — DT_SONAME and DT_NEEDED — straight from its
// program headers, the same place the dynamic loader looks. No dlopen: the launcher must judge a
// library it may not be able to load (wrong major, missing dependencies) without running its code.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack::elf {

struct ElfDynamicNames {
  std::string soname;               // empty when the file has no DT_SONAME
  std::vector<std::string> needed;  // DT_NEEDED in file order
};

// Random access to the bytes of one file; lets tests parse in-memory images.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Exactly `length` bytes at `offset`, or OutOfRange when the file is shorter.
  virtual StatusOr<std::string> ReadAt(uint64_t offset, uint64_t length) const = 0;
  virtual uint64_t Size() const = 0;
};

class MemoryByteSource final : public ByteSource {
 public:
  explicit MemoryByteSource(std::string bytes) : bytes_(std::move(bytes)) {}
  StatusOr<std::string> ReadAt(uint64_t offset, uint64_t length) const override;
  uint64_t Size() const override { return bytes_.size(); }

 private:
  std::string bytes_;
};

// Opens `path` for pread; NotFound / PermissionDenied with the path in the message.
StatusOr<std::unique_ptr<ByteSource>> OpenFileByteSource(const std::string& path);

// Parses a little-endian ELF64 image. Anything malformed is an error naming what is wrong;
// a file without a PT_DYNAMIC segment (static executable) yields empty names.
StatusOr<ElfDynamicNames> ReadElfDynamicNames(const ByteSource& source);

// Parses the first `size` bytes of an open file (read with pread; the descriptor stays open): a
// caller that checked the file through this descriptor parses exactly what it checked.
StatusOr<ElfDynamicNames> ReadElfDynamicNamesFromFd(int fd, uint64_t size);

// Convenience: open + parse; errors are prefixed with the path.
StatusOr<ElfDynamicNames> ReadElfDynamicNamesFromFile(const std::string& path);

}  // namespace rdmastack::elf
