#pragma once
// What of a profile's library image the client installs on the host, decided in full before any
// byte is written. The image is the profile author's choice and its init container runs the
// author's own shell, so everything in the library directory is hostile until checked: every
// entry name, every link target and every name read from inside a file (an ELF's SONAME and
// NEEDED) must be one plain file name (base/host_dir.h CheckPlainName); only regular files and
// links to a sibling are taken; setuid, setgid, sticky and world-writable files are refused; each
// file and the whole image must fit the byte budget, counted on size and on allocated blocks. One
// problem refuses the whole image, and the refusal names every offending entry.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/host_dir.h"
#include "base/status.h"

namespace rdmastack::client {

// Defaults of --max-library-file-size and --max-library-size (documented in docs/client.md).
inline constexpr uint64_t kDefaultMaxLibraryFileBytes = uint64_t{64} << 20;
inline constexpr uint64_t kDefaultMaxLibraryBytes = uint64_t{128} << 20;
// Entries of a library directory: the init container makes two.
inline constexpr size_t kMaxLibraryEntries = 64;

struct LibraryBudget {
  uint64_t max_file_bytes = kDefaultMaxLibraryFileBytes;
  uint64_t max_total_bytes = kDefaultMaxLibraryBytes;
};

struct PlannedFile {
  std::string name;
  OpenedFile file;  // opened once, read from this descriptor only
  mode_t mode = 0644;
};

struct LibraryPlan {
  std::vector<PlannedFile> files;
  std::map<std::string, std::string> links;  // name -> the sibling it names
  uint64_t charged_bytes = 0;
  bool Wants(const std::string& name) const;
};

// FailedPrecondition (the message lists each problem with the entry's name, then says that
// nothing is installed) when the image is refused; other codes when `source` cannot be read.
StatusOr<LibraryPlan> PlanLibrary(const HostDir& source, const LibraryBudget& budget);

// "64 MiB", "1.5 KiB", "12 bytes": sizes in messages.
std::string FormatBytes(uint64_t bytes);

}  // namespace rdmastack::client
