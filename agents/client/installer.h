#pragma once
// Writes the client's files into the install directory (a hostPath) and removes them again.
// Every file is replaced atomically (temporary file + rename in the same directory) and only when
// its content changed, so applications never read half a file and a steady node writes nothing.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agents/client/render.h"
#include "base/status.h"

namespace rdmastack::client {

class Installer {
 public:
  explicit Installer(std::string install_dir) : dir_(std::move(install_dir)) {}

  // Creates the install directory and log/ (cuFile's logging.dir) when missing.
  Status Prepare();
  // Writes each file whose content differs from what is on disk; returns the names written.
  StatusOr<std::vector<std::string>> WriteFiles(const std::vector<RenderedFile>& files);
  // Makes lib/ mirror `library_dir`: regular files copied when their size or bytes differ,
  // relative symlinks recreated, a SONAME link (libcuobjclient.so.1 -> the newest file that
  // declares it) added when the directory has none, anything else in lib/ removed. A missing
  // `library_dir` changes nothing. Returns one line per change ("copied lib/x", ...).
  StatusOr<std::vector<std::string>> SyncLibraries(const std::string& library_dir);
  // Removes the rendered files, lib/ and log/, then the directory itself if that leaves it empty.
  // Returns what it removed; problems are returned as lines starting with "cannot".
  std::vector<std::string> Uninstall();

  const std::string& dir() const { return dir_; }

 private:
  // What a copied library looked like when it was last found equal to its source, so a steady
  // node does not reread both files every pass.
  struct FileSig {
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    friend bool operator==(const FileSig&, const FileSig&) = default;
  };
  struct CopyRecord {
    FileSig source;
    FileSig copy;
  };
  Status CopyIfChanged(const std::string& source, const std::string& name, bool* copied);

  std::string dir_;
  std::map<std::string, CopyRecord> copies_;
};

}  // namespace rdmastack::client
