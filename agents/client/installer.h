#pragma once
// Writes the client's files into the install directory (a hostPath) and removes them again, all
// through base/host_dir.h: the directory is opened as a descriptor and every name below it is one
// plain component, so nothing is written outside it. Every file is replaced atomically (a
// temporary name of this writer's own, fsync, rename) and only when its content changed, so
// applications never read half a file and a steady node writes nothing.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agents/client/library_plan.h"
#include "agents/client/render.h"
#include "base/host_dir.h"
#include "base/status.h"

namespace rdmastack::client {

class Installer {
 public:
  explicit Installer(std::string install_dir, LibraryBudget budget = {})
      : dir_(std::move(install_dir)), budget_(budget) {}

  // Creates the install directory and log/ (cuFile's logging.dir) when missing.
  Status Prepare();
  // Writes each file whose content differs from what is on disk; returns the names written.
  StatusOr<std::vector<std::string>> WriteFiles(const std::vector<RenderedFile>& files);
  // Decides what of `library_dir` to install (library_plan.h) without writing anything:
  // FailedPrecondition naming every offending entry when the image is refused; nullopt when
  // `library_dir` does not exist.
  StatusOr<std::optional<LibraryPlan>> PlanLibraries(const std::string& library_dir) const;
  // Makes lib/ mirror a plan: regular files copied (mode 0644/0755) when their size or bytes
  // differ, links to siblings recreated, the SONAME link (libcuobjclient.so.1 -> the newest file
  // that declares it) added when the image has none, anything else in lib/ removed. Returns one
  // line per change ("copied lib/x", ...).
  StatusOr<std::vector<std::string>> InstallLibraries(const LibraryPlan& plan);
  // PlanLibraries, then InstallLibraries; a missing `library_dir` changes nothing.
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
  static FileSig Sig(const struct stat& st);
  StatusOr<bool> CopyIfChanged(const HostDir& lib, const PlannedFile& file);

  std::string dir_;
  LibraryBudget budget_;
  std::map<std::string, CopyRecord> copies_;
};

}  // namespace rdmastack::client
