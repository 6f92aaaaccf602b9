#include "agents/client/installer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

namespace rdmastack::client {
namespace {

// What lies on disk is at most what we wrote; a bigger file was not ours and is rewritten.
constexpr size_t kMaxRenderedFileBytes = 1 << 20;

// Equal bytes over `size`, read from both descriptors.
bool SameBytes(int a, int b, uint64_t size) {
  char ba[65536], bb[65536];
  for (uint64_t off = 0; off < size;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof ba, size - off));
    const ssize_t na = ::pread(a, ba, want, static_cast<off_t>(off));
    const ssize_t nb = ::pread(b, bb, want, static_cast<off_t>(off));
    if (na <= 0 || na != nb || std::memcmp(ba, bb, static_cast<size_t>(na)) != 0) return false;
    off += static_cast<uint64_t>(na);
  }
  return true;
}

// The install directory's parent and its last component, for opening and for rmdir.
std::pair<std::string, std::string> SplitDir(const std::string& dir) {
  const std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
  return {p.parent_path().string(), p.filename().string()};
}

}  // namespace

Installer::FileSig Installer::Sig(const struct stat& st) {
  return FileSig{static_cast<uint64_t>(st.st_size),
                 static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
                 static_cast<uint64_t>(st.st_ino)};
}

Status Installer::Prepare() {
  RDMASTACK_ASSIGN_OR_RETURN(HostDir dir, HostDir::Open(dir_, /*create=*/true));
  return dir.OpenChild(kLogDir, /*create=*/true).status();
}

StatusOr<std::vector<std::string>> Installer::WriteFiles(const std::vector<RenderedFile>& files) {
  RDMASTACK_ASSIGN_OR_RETURN(HostDir dir, HostDir::Open(dir_, /*create=*/true));
  std::vector<std::string> written;
  for (const RenderedFile& f : files) {
    StatusOr<std::string> now = dir.ReadFile(f.name, kMaxRenderedFileBytes);
    if (now.ok() && *now == f.content) continue;
    RDMASTACK_RETURN_IF_ERROR(dir.WriteFile(f.name, f.content, 0644));
    written.push_back(f.name);
  }
  return written;
}

StatusOr<std::optional<LibraryPlan>> Installer::PlanLibraries(
    const std::string& library_dir) const {
  StatusOr<HostDir> source = HostDir::Open(library_dir, /*create=*/false);
  if (!source.ok() && source.status().code() == StatusCode::kNotFound) {
    return std::optional<LibraryPlan>();
  }
  if (!source.ok()) return source.status();
  RDMASTACK_ASSIGN_OR_RETURN(LibraryPlan plan, PlanLibrary(*source, budget_));
  return std::optional<LibraryPlan>(std::move(plan));
}

StatusOr<bool> Installer::CopyIfChanged(const HostDir& lib, const PlannedFile& file) {
  const struct stat& src = file.file.st;
  StatusOr<OpenedFile> dest = lib.OpenRegular(file.name);
  if (dest.ok() && dest->st.st_size == src.st_size && (dest->st.st_mode & 07777) == file.mode) {
    auto known = copies_.find(file.name);
    if (known != copies_.end() && known->second.source == Sig(src) &&
        known->second.copy == Sig(dest->st)) {
      return false;
    }
    if (SameBytes(file.file.fd.get(), dest->fd.get(), static_cast<uint64_t>(src.st_size))) {
      copies_[file.name] = {Sig(src), Sig(dest->st)};
      return false;
    }
  }
  RDMASTACK_RETURN_IF_ERROR(
      lib.CopyFile(file.name, file.file.fd.get(), static_cast<uint64_t>(src.st_size), file.mode));
  if (StatusOr<struct stat> now = lib.Lstat(file.name); now.ok()) {
    copies_[file.name] = {Sig(src), Sig(*now)};
  }
  return true;
}

StatusOr<std::vector<std::string>> Installer::InstallLibraries(const LibraryPlan& plan) {
  RDMASTACK_ASSIGN_OR_RETURN(HostDir dir, HostDir::Open(dir_, /*create=*/true));
  RDMASTACK_ASSIGN_OR_RETURN(HostDir lib, dir.OpenChild(kLibDir, /*create=*/true));
  const std::string shown = std::string(kLibDir) + "/";
  std::vector<std::string> changes;
  // In name order, links and files together, as the changes are reported.
  std::map<std::string, const PlannedFile*> files;
  for (const PlannedFile& f : plan.files) files[f.name] = &f;
  std::set<std::string> names;
  for (const auto& [n, _] : files) names.insert(n);
  for (const auto& [n, _] : plan.links) names.insert(n);
  for (const std::string& name : names) {
    if (auto link = plan.links.find(name); link != plan.links.end()) {
      StatusOr<struct stat> st = lib.Lstat(name);
      if (st.ok() && S_ISLNK(st->st_mode)) {
        StatusOr<std::string> target = lib.ReadLink(name);
        if (target.ok() && *target == link->second) continue;
      }
      RDMASTACK_RETURN_IF_ERROR(lib.Symlink(name, link->second));
      changes.push_back("linked " + shown + name + " -> " + link->second);
      continue;
    }
    RDMASTACK_ASSIGN_OR_RETURN(bool copied, CopyIfChanged(lib, *files.at(name)));
    if (copied) changes.push_back("copied " + shown + name);
  }
  RDMASTACK_ASSIGN_OR_RETURN(std::vector<std::string> present, lib.List());
  for (const std::string& name : present) {
    if (names.count(name) != 0) continue;
    // Names in lib/ are ours or an interrupted writer's; a stranger's odd name is shown escaped.
    StatusOr<bool> removed = CheckPlainName(name).ok()
                                 ? lib.RemoveTree(name)
                                 : StatusOr<bool>(InvalidArgumentError("not a plain name"));
    copies_.erase(name);
    if (!removed.ok() && name.compare(0, kHostTempPrefix.size(), kHostTempPrefix) == 0) continue;
    changes.push_back(removed.ok() ? "removed " + shown + ShowName(name)
                                   : "cannot remove " + shown + ShowName(name) + ": " +
                                         removed.status().message());
  }
  if (StatusOr<std::vector<std::string>> tmp = lib.RemoveTemporaryFiles(); tmp.ok()) {
    for (const std::string& t : *tmp) changes.push_back("removed " + shown + t);
  }
  return changes;
}

StatusOr<std::vector<std::string>> Installer::SyncLibraries(const std::string& library_dir) {
  RDMASTACK_ASSIGN_OR_RETURN(std::optional<LibraryPlan> plan, PlanLibraries(library_dir));
  if (!plan) return std::vector<std::string>{};
  return InstallLibraries(*plan);
}

std::vector<std::string> Installer::Uninstall() {
  std::vector<std::string> removed;
  StatusOr<HostDir> dir = HostDir::Open(dir_, /*create=*/false);
  if (!dir.ok()) {
    if (dir.status().code() != StatusCode::kNotFound) {
      removed.push_back("cannot open " + dir_ + ": " + dir.status().message());
    }
    return removed;
  }
  auto note = [&](const StatusOr<bool>& r, const std::string& shown) {
    if (!r.ok()) {
      removed.push_back("cannot remove " + shown + ": " + r.status().message());
    } else if (*r) {
      removed.push_back(shown);
    }
  };
  for (const std::string& name : InstalledFileNames()) {
    note(dir->Remove(name), dir_ + "/" + name);
  }
  for (const char* sub : {kLibDir, kLogDir}) note(dir->RemoveTree(sub), dir_ + "/" + sub + "/");
  // Temporary files of an interrupted write (ours, or an earlier version's "<name>.tmp.<pid>")
  // would keep the directory from being empty.
  StatusOr<std::vector<std::string>> tmp = dir->RemoveTemporaryFiles();
  if (!tmp.ok()) {
    removed.push_back("cannot remove temporary files in " + dir_ + ": " + tmp.status().message());
    return removed;
  }
  for (const std::string& t : *tmp) removed.push_back(dir_ + "/" + t);
  const std::set<std::string> ours(InstalledFileNames().begin(), InstalledFileNames().end());
  StatusOr<std::vector<std::string>> left = dir->List();
  if (!left.ok()) {
    removed.push_back("cannot list " + dir_ + ": " + left.status().message());
    return removed;
  }
  size_t kept = left->size();
  for (const std::string& name : *left) {
    const size_t at = name.find(".tmp.");
    if (at == std::string::npos || ours.count(name.substr(0, at)) == 0) continue;
    StatusOr<bool> r = dir->Remove(name);
    note(r, dir_ + "/" + name);
    if (r.ok()) --kept;
  }
  if (kept != 0) return removed;
  const auto [parent_path, base] = SplitDir(dir_);
  StatusOr<HostDir> parent = HostDir::Open(parent_path, /*create=*/false);
  // The operator mounts the profile's own host directory as the install directory (no pod mounts
  // the root of every profile's): a mount point, on another file system than its parent, which
  // stays on the host, empty. Its parent may be a read-only root (EROFS, not EBUSY).
  struct stat here {
  }, above{};
  if (parent.ok() && ::fstat(dir->fd(), &here) == 0 && ::fstat(parent->fd(), &above) == 0 &&
      here.st_dev != above.st_dev)
    return removed;
  StatusOr<bool> gone = parent.ok() ? parent->RemoveDir(base) : StatusOr<bool>(parent.status());
  if (gone.ok()) {
    if (*gone) removed.push_back(dir_ + "/");
  } else if (gone.status().code() != StatusCode::kFailedPrecondition) {
    // FailedPrecondition: a hostPath mounted exactly here is a mount point; the host keeps it.
    removed.push_back("cannot remove " + dir_ + "/: " + gone.status().message());
  }
  return removed;
}

}  // namespace rdmastack::client
