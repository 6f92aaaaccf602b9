#include "lib/elf/elf_dynamic.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "lib/elf/elf_read.h"

namespace rdmastack::elf {
namespace {

using internal::ReadStruct;

// Bounds that no real binary comes near; they keep a hostile file from making us allocate GiBs.
constexpr uint64_t kMaxProgramHeaders = 4096;
constexpr uint64_t kMaxDynamicBytes = 1 << 20;
constexpr uint64_t kMaxStringTableBytes = 64ull << 20;

class FileByteSource final : public ByteSource {
 public:
  // `owned`: the source closes the descriptor when it goes.
  FileByteSource(int fd, uint64_t size, bool owned = true) : fd_(fd), size_(size), owned_(owned) {}
  ~FileByteSource() override {
    if (owned_) ::close(fd_);
  }
  FileByteSource(const FileByteSource&) = delete;
  FileByteSource& operator=(const FileByteSource&) = delete;

  StatusOr<std::string> ReadAt(uint64_t offset, uint64_t length) const override {
    if (offset > size_ || length > size_ - offset) {
      return OutOfRangeError("read past end of file");
    }
    std::string out(length, '\0');
    uint64_t done = 0;
    while (done < length) {
      ssize_t n = ::pread(fd_, out.data() + done, length - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return DataLossError(std::string("read failed: ") + std::strerror(errno));
      done += static_cast<uint64_t>(n);
    }
    return out;
  }
  uint64_t Size() const override { return size_; }

 private:
  int fd_;
  uint64_t size_;
  bool owned_;
};

// Virtual address -> file offset through the PT_LOAD segment that holds [vaddr, vaddr+len).
std::optional<uint64_t> FileOffsetOf(const std::vector<Elf64_Phdr>& loads, uint64_t vaddr,
                                     uint64_t len) {
  for (const Elf64_Phdr& ph : loads) {
    if (vaddr < ph.p_vaddr) continue;
    uint64_t rel = vaddr - ph.p_vaddr;
    if (rel > ph.p_filesz || len > ph.p_filesz - rel) continue;
    return ph.p_offset + rel;
  }
  return std::nullopt;
}

StatusOr<std::string> StringAt(const std::string& table, uint64_t offset) {
  if (offset >= table.size()) return DataLossError("string offset outside DT_STRTAB");
  size_t end = table.find('\0', offset);
  if (end == std::string::npos) return DataLossError("unterminated string in DT_STRTAB");
  return table.substr(offset, end - offset);
}

}  // namespace

StatusOr<Elf64_Ehdr> internal::ReadElfHeader(const ByteSource& source) {
  RDMASTACK_ASSIGN_OR_RETURN(Elf64_Ehdr eh, ReadStruct<Elf64_Ehdr>(source, 0, "ELF header"));
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    return InvalidArgumentError("not an ELF file (bad magic)");
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
    return InvalidArgumentError("not a 64-bit ELF file (ELFCLASS " +
                                std::to_string(eh.e_ident[EI_CLASS]) + ")");
  }
  if (eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    return InvalidArgumentError("not a little-endian ELF file");
  }
  return eh;
}

StatusOr<std::string> MemoryByteSource::ReadAt(uint64_t offset, uint64_t length) const {
  if (offset > bytes_.size() || length > bytes_.size() - offset) {
    return OutOfRangeError("read past end of file");
  }
  return bytes_.substr(offset, length);
}

StatusOr<std::unique_ptr<ByteSource>> OpenFileByteSource(const std::string& path) {
  // O_NONBLOCK: a FIFO at the path must not hang the caller before fstat refuses it.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int err = errno;
    std::string msg = path + ": " + std::strerror(err);
    if (err == ENOENT) return NotFoundError(msg);
    if (err == EACCES) return PermissionDeniedError(msg);
    return UnavailableError(msg);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return InvalidArgumentError(path + ": not a regular file");
  }
  return std::unique_ptr<ByteSource>(
      std::make_unique<FileByteSource>(fd, static_cast<uint64_t>(st.st_size)));
}

StatusOr<ElfDynamicNames> ReadElfDynamicNames(const ByteSource& source) {
  RDMASTACK_ASSIGN_OR_RETURN(Elf64_Ehdr eh, internal::ReadElfHeader(source));
  if (eh.e_phnum == 0) return ElfDynamicNames{};
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == PN_XNUM ||
      eh.e_phnum > kMaxProgramHeaders) {
    return InvalidArgumentError("malformed program header table");
  }

  std::vector<Elf64_Phdr> loads;
  std::optional<Elf64_Phdr> dynamic;
  for (uint64_t i = 0; i < eh.e_phnum; ++i) {
    RDMASTACK_ASSIGN_OR_RETURN(
        Elf64_Phdr ph,
        ReadStruct<Elf64_Phdr>(source, eh.e_phoff + i * sizeof(Elf64_Phdr), "program header"));
    if (ph.p_type == PT_LOAD) loads.push_back(ph);
    if (ph.p_type == PT_DYNAMIC) dynamic = ph;
  }
  if (!dynamic) return ElfDynamicNames{};  // statically linked: needs nothing
  if (dynamic->p_filesz > kMaxDynamicBytes) {
    return InvalidArgumentError("PT_DYNAMIC segment implausibly large");
  }

  StatusOr<std::string> dyn_bytes = source.ReadAt(dynamic->p_offset, dynamic->p_filesz);
  if (!dyn_bytes.ok()) return dyn_bytes.status().WithContext("PT_DYNAMIC segment truncated");

  std::optional<uint64_t> strtab_vaddr;
  uint64_t strtab_size = 0;
  std::optional<uint64_t> soname_offset;
  std::vector<uint64_t> needed_offsets;
  for (size_t pos = 0; pos + sizeof(Elf64_Dyn) <= dyn_bytes->size(); pos += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d;
    std::memcpy(&d, dyn_bytes->data() + pos, sizeof(d));
    if (d.d_tag == DT_NULL) break;
    switch (d.d_tag) {
      case DT_STRTAB: strtab_vaddr = d.d_un.d_ptr; break;
      case DT_STRSZ: strtab_size = d.d_un.d_val; break;
      case DT_SONAME: soname_offset = d.d_un.d_val; break;
      case DT_NEEDED: needed_offsets.push_back(d.d_un.d_val); break;
      default: break;
    }
  }
  if (!soname_offset && needed_offsets.empty()) return ElfDynamicNames{};
  if (!strtab_vaddr || strtab_size == 0 || strtab_size > kMaxStringTableBytes) {
    return InvalidArgumentError("dynamic section names strings but has no usable DT_STRTAB");
  }
  std::optional<uint64_t> strtab_offset = FileOffsetOf(loads, *strtab_vaddr, strtab_size);
  if (!strtab_offset) return InvalidArgumentError("DT_STRTAB is not inside a loadable segment");
  StatusOr<std::string> strtab = source.ReadAt(*strtab_offset, strtab_size);
  if (!strtab.ok()) return strtab.status().WithContext("DT_STRTAB truncated");

  ElfDynamicNames names;
  if (soname_offset) {
    RDMASTACK_ASSIGN_OR_RETURN(names.soname, StringAt(*strtab, *soname_offset));
  }
  for (uint64_t off : needed_offsets) {
    RDMASTACK_ASSIGN_OR_RETURN(std::string name, StringAt(*strtab, off));
    names.needed.push_back(std::move(name));
  }
  return names;
}

StatusOr<ElfDynamicNames> ReadElfDynamicNamesFromFd(int fd, uint64_t size) {
  return ReadElfDynamicNames(FileByteSource(fd, size, /*owned=*/false));
}

StatusOr<ElfDynamicNames> ReadElfDynamicNamesFromFile(const std::string& path) {
  StatusOr<std::unique_ptr<ByteSource>> source = OpenFileByteSource(path);
  if (!source.ok()) return source.status();
  StatusOr<ElfDynamicNames> names = ReadElfDynamicNames(**source);
  if (!names.ok()) return names.status().WithContext(path);
  return names;
}

}  // namespace rdmastack::elf
