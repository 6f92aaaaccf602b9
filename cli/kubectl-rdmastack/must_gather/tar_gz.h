#pragma once
// A .tar.gz in memory: POSIX ustar entries (regular files only) compressed with zlib's gzip.
// Pure: the bytes depend only on the entries and `mtime`, so tests read them back with the
// system's `tar -tzf`. The must-gather bundle is one such archive; a small writer instead of a
// library because a support bundle needs nothing beyond plain files.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace rdmastack::plugin {

struct ArchiveEntry {
  std::string path;  // relative, '/'-separated, no "..", at most 255 bytes (ustar prefix + name)
  std::string content;
};

// InvalidArgument for a path ustar cannot hold (empty, absolute, "..", too long, or with no '/'
// at which to split a name longer than 100 bytes); Internal when zlib fails. Every file gets mode
// 0600: a bundle holds logs and is for the person who made it.
StatusOr<std::string> WriteTarGz(const std::vector<ArchiveEntry>& entries, int64_t mtime);

// Only the ustar stream (no compression), for tests and for callers that compress elsewhere.
StatusOr<std::string> WriteTar(const std::vector<ArchiveEntry>& entries, int64_t mtime);

// gzip (RFC 1952) of `bytes`, and its inverse (for reading helm's release records).
StatusOr<std::string> Gzip(const std::string& bytes);
StatusOr<std::string> Gunzip(const std::string& bytes, size_t max_bytes = size_t{256} << 20);

}  // namespace rdmastack::plugin
