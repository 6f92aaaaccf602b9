#include "cli/kubectl-rdmastack/must_gather/tar_gz.h"

#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <string_view>

namespace rdmastack::plugin {
namespace {

constexpr size_t kBlock = 512;

// Writes `value` as width-1 zero-padded octal digits and a NUL, as ustar wants (sizes up to
// 8 GiB fit the 12-byte field; a bundle is far below).
void Octal(char* field, size_t width, uint64_t value) {
  field[width - 1] = '\0';
  for (size_t i = width - 1; i > 0; --i) {
    field[i - 1] = static_cast<char>('0' + (value & 7));
    value >>= 3;
  }
}

Status CheckPath(std::string_view path) {
  if (path.empty()) return InvalidArgumentError("archive path is empty");
  if (path.front() == '/')
    return InvalidArgumentError("archive path is absolute: " + std::string(path));
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = std::min(path.find('/', start), path.size());
    const std::string_view part = path.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..")
      return InvalidArgumentError("archive path has an empty, . or .. part: " + std::string(path));
    start = slash + 1;
  }
  return OkStatus();
}

// ustar keeps a path as prefix (155 bytes) + '/' + name (100 bytes).
StatusOr<std::pair<std::string, std::string>> SplitPath(const std::string& path) {
  if (path.size() <= 100) return std::make_pair(std::string(), path);
  for (size_t slash = path.find('/'); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    if (slash <= 155 && path.size() - slash - 1 <= 100 && path.size() - slash - 1 > 0)
      return std::make_pair(path.substr(0, slash), path.substr(slash + 1));
  }
  return InvalidArgumentError("archive path too long for ustar (" + std::to_string(path.size()) +
                              " bytes): " + path);
}

}  // namespace

StatusOr<std::string> WriteTar(const std::vector<ArchiveEntry>& entries, int64_t mtime) {
  std::string out;
  for (const ArchiveEntry& entry : entries) {
    RDMASTACK_RETURN_IF_ERROR(CheckPath(entry.path));
    RDMASTACK_ASSIGN_OR_RETURN(auto split, SplitPath(entry.path));
    char header[kBlock] = {};
    std::memcpy(header, split.second.data(), split.second.size());          // name
    Octal(header + 100, 8, 0600);                                           // mode
    Octal(header + 108, 8, 0);                                              // uid
    Octal(header + 116, 8, 0);                                              // gid
    Octal(header + 124, 12, entry.content.size());                          // size
    Octal(header + 136, 12, static_cast<uint64_t>(mtime < 0 ? 0 : mtime));  // mtime
    header[156] = '0';                                                      // regular file
    std::memcpy(header + 257, "ustar", 6);                                  // magic + NUL
    std::memcpy(header + 263, "00", 2);                                     // version
    std::memcpy(header + 345, split.first.data(), split.first.size());      // prefix
    // The checksum is the byte sum of the header with its own field read as spaces.
    std::memset(header + 148, ' ', 8);
    unsigned sum = 0;
    for (unsigned char c : header) sum += c;
    Octal(header + 148, 7, sum);  // six digits, NUL, then the space already there
    header[155] = ' ';
    out.append(header, kBlock);
    out += entry.content;
    out.append((kBlock - entry.content.size() % kBlock) % kBlock, '\0');
  }
  out.append(2 * kBlock, '\0');  // end of archive
  return out;
}

StatusOr<std::string> Gzip(const std::string& bytes) {
  z_stream z{};
  // 15 + 16: a gzip wrapper rather than zlib's own.
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return InternalError("zlib deflateInit2 failed");
  std::string out(deflateBound(&z, bytes.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  const uLong written = z.total_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return InternalError("zlib deflate failed: " + std::to_string(rc));
  out.resize(written);
  return out;
}

StatusOr<std::string> Gunzip(const std::string& bytes, size_t max_bytes) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return InternalError("zlib inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  std::string out;
  char buffer[64 * 1024];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof(buffer);
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      return InvalidArgumentError("not gzip data (zlib " + std::to_string(rc) + ")");
    }
    out.append(buffer, sizeof(buffer) - z.avail_out);
    if (out.size() > max_bytes) {
      inflateEnd(&z);
      return ResourceExhaustedError("gzip data inflates past " + std::to_string(max_bytes) +
                                    " bytes");
    }
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
      inflateEnd(&z);
      return InvalidArgumentError("gzip data is truncated");
    }
  }
  inflateEnd(&z);
  return out;
}

StatusOr<std::string> WriteTarGz(const std::vector<ArchiveEntry>& entries, int64_t mtime) {
  RDMASTACK_ASSIGN_OR_RETURN(std::string tar, WriteTar(entries, mtime));
  return Gzip(tar);
}

}  // namespace rdmastack::plugin
