#include "agents/client/installer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "base/atomic_file.h"
#include "lib/elf/elf_dynamic.h"
#include "node/probe/host_root.h"

namespace rdmastack::client {
namespace {

namespace fs = std::filesystem;

std::string Join(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

std::optional<std::string> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return out;
}

std::optional<struct stat> Lstat(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::nullopt;
  return st;
}

bool SameBytes(const std::string& a, const std::string& b) {
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  if (!fa || !fb) return false;
  char ba[65536], bb[65536];
  while (true) {
    fa.read(ba, sizeof ba);
    fb.read(bb, sizeof bb);
    if (fa.gcount() != fb.gcount()) return false;
    if (fa.gcount() == 0) return fa.eof() && fb.eof();
    if (std::memcmp(ba, bb, static_cast<size_t>(fa.gcount())) != 0) return false;
  }
}

// A symlink made beside the target and renamed over it: readers see the old or the new link.
Status LinkAtomically(const std::string& target, const std::string& path) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  ::unlink(tmp.c_str());
  if (::symlink(target.c_str(), tmp.c_str()) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return UnavailableError("cannot link " + path + " -> " + target + ": " + err);
  }
  return OkStatus();
}

// The library directory as it should appear in lib/: name -> symlink target ("" = a copy).
struct WantedEntry {
  std::string source;       // copy: the file to copy
  std::string link_target;  // link: the relative target
};

// glibc's version order ("so.1.10" after "so.1.9"): the newest file wins a SONAME.
bool NewerVersion(const std::string& a, const std::string& b) {
  return ::strverscmp(a.c_str(), b.c_str()) > 0;
}

// Sorted entry names of a directory; NotFound when it does not exist.
StatusOr<std::vector<std::string>> ListNames(const std::string& dir) {
  return agent::HostRoot(dir).ListDir("");
}

}  // namespace

Status Installer::Prepare() {
  std::error_code ec;
  for (const std::string& d : {dir_, Join(dir_, kLogDir)}) {
    fs::create_directories(d, ec);
    if (ec) return PermissionDeniedError("cannot create " + d + ": " + ec.message());
  }
  return OkStatus();
}

StatusOr<std::vector<std::string>> Installer::WriteFiles(const std::vector<RenderedFile>& files) {
  std::vector<std::string> written;
  for (const RenderedFile& f : files) {
    const std::string path = Join(dir_, f.name);
    if (std::optional<std::string> now = ReadAll(path); now && *now == f.content) continue;
    RDMASTACK_RETURN_IF_ERROR(WriteFileAtomically(path, f.content));
    written.push_back(f.name);
  }
  return written;
}

Status Installer::CopyIfChanged(const std::string& source, const std::string& name, bool* copied) {
  *copied = false;
  const std::string dest = Join(Join(dir_, kLibDir), name);
  auto sig = [](const struct stat& st) {
    return FileSig{static_cast<uint64_t>(st.st_size),
                   static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
                   static_cast<uint64_t>(st.st_ino)};
  };
  struct stat src {};
  if (::stat(source.c_str(), &src) != 0) {
    return UnavailableError("cannot read " + source + ": " + std::strerror(errno));
  }
  std::optional<struct stat> dst = Lstat(dest);
  if (dst && S_ISREG(dst->st_mode) && dst->st_size == src.st_size) {
    auto known = copies_.find(name);
    if (known != copies_.end() && known->second.source == sig(src) &&
        known->second.copy == sig(*dst)) {
      return OkStatus();
    }
    if (SameBytes(source, dest)) {
      copies_[name] = {sig(src), sig(*dst)};
      return OkStatus();
    }
  }
  const std::string tmp = dest + ".tmp." + std::to_string(::getpid());
  std::error_code ec;
  fs::copy_file(source, tmp, fs::copy_options::overwrite_existing, ec);
  if (ec || ::rename(tmp.c_str(), dest.c_str()) != 0) {
    const std::string err = ec ? ec.message() : std::strerror(errno);
    ::unlink(tmp.c_str());
    return UnavailableError("cannot copy " + source + " to " + dest + ": " + err);
  }
  *copied = true;
  if (std::optional<struct stat> now = Lstat(dest)) copies_[name] = {sig(src), sig(*now)};
  return OkStatus();
}

StatusOr<std::vector<std::string>> Installer::SyncLibraries(const std::string& library_dir) {
  std::vector<std::string> changes;
  StatusOr<std::vector<std::string>> names = ListNames(library_dir);
  if (!names.ok() && names.status().code() == StatusCode::kNotFound) return changes;
  if (!names.ok()) return names.status();
  std::error_code ec;
  std::map<std::string, WantedEntry> wanted;
  std::string refused;
  for (const std::string& name : *names) {
    const std::string path = Join(library_dir, name);
    std::optional<struct stat> st = Lstat(path);
    if (!st) continue;
    if (S_ISLNK(st->st_mode)) {
      // The image is the profile author's choice and the node's root is at /host: a link may only
      // name a file beside it (which also keeps working on the host). Following any other would
      // copy node files (kubelet keys, other pods' secrets) into every labelled pod's mount.
      const std::string target = fs::read_symlink(path, ec).string();
      if (!ec && !target.empty() && target.find('/') == std::string::npos && target != "." &&
          target != "..") {
        wanted[name] = {"", target};
      } else {
        refused += (refused.empty() ? "" : ", ") + name + " -> " + target;
      }
      continue;
    }
    // Regular files only (lstat: never through a link); directories, fifos, devices are left out.
    if (S_ISREG(st->st_mode)) wanted[name] = {path, ""};
  }
  if (!refused.empty()) {
    return FailedPreconditionError(
        "the library image has links that leave it (" + refused +
        "); a link in it may only name a file beside it. Nothing from the image is installed; "
        "what was installed before stays. Fix the image clientLibrary.image names");
  }
  // Applications link the SONAME (libcuobjclient.so.1); an image may ship only the full version.
  std::map<std::string, std::string> soname_owner;
  for (const auto& [name, w] : wanted) {
    if (w.source.empty()) continue;
    auto elf = gateway::ReadElfDynamicNamesFromFile(w.source);
    if (!elf.ok() || elf->soname.empty() || elf->soname == name) continue;
    std::string& owner = soname_owner[elf->soname];
    if (owner.empty() || NewerVersion(name, owner)) owner = name;
  }
  for (const auto& [soname, owner] : soname_owner) {
    if (wanted.count(soname) == 0) wanted[soname] = {"", owner};
  }

  const std::string lib = Join(dir_, kLibDir);
  fs::create_directories(lib, ec);
  if (ec) return PermissionDeniedError("cannot create " + lib + ": " + ec.message());
  const std::string shown = std::string(kLibDir) + "/";
  for (const auto& [name, w] : wanted) {
    const std::string dest = Join(lib, name);
    if (w.source.empty()) {
      std::optional<struct stat> st = Lstat(dest);
      if (st && S_ISLNK(st->st_mode) && fs::read_symlink(dest, ec).string() == w.link_target) {
        continue;
      }
      RDMASTACK_RETURN_IF_ERROR(LinkAtomically(w.link_target, dest));
      changes.push_back("linked " + shown + name + " -> " + w.link_target);
      continue;
    }
    bool copied = false;
    RDMASTACK_RETURN_IF_ERROR(CopyIfChanged(w.source, name, &copied));
    if (copied) changes.push_back("copied " + shown + name);
  }
  RDMASTACK_ASSIGN_OR_RETURN(std::vector<std::string> present, ListNames(lib));
  for (const std::string& name : present) {
    if (wanted.count(name) != 0) continue;
    fs::remove_all(Join(lib, name), ec);
    copies_.erase(name);
    changes.push_back(ec ? "cannot remove " + shown + name + ": " + ec.message()
                         : "removed " + shown + name);
  }
  return changes;
}

std::vector<std::string> Installer::Uninstall() {
  std::vector<std::string> removed;
  std::error_code ec;
  auto remove = [&](const std::string& path, bool recursive, const std::string& shown) {
    const std::uintmax_t n = recursive ? fs::remove_all(path, ec) : fs::remove(path, ec) ? 1 : 0;
    if (ec) {
      removed.push_back("cannot remove " + shown + ": " + ec.message());
    } else if (n > 0) {
      removed.push_back(shown);
    }
  };
  for (const std::string& name : InstalledFileNames()) {
    remove(Join(dir_, name), false, Join(dir_, name));
  }
  for (const char* sub : {kLibDir, kLogDir}) remove(Join(dir_, sub), true, Join(dir_, sub) + "/");
  // Temporary files of an interrupted write (ours or an earlier process's) would keep the
  // directory from being empty.
  const std::set<std::string> ours(InstalledFileNames().begin(), InstalledFileNames().end());
  StatusOr<std::vector<std::string>> left = ListNames(dir_);
  if (!left.ok()) {
    if (left.status().code() != StatusCode::kNotFound) {
      removed.push_back("cannot list " + dir_ + ": " + left.status().message());
    }
    return removed;
  }
  size_t kept = left->size();
  for (const std::string& name : *left) {
    const size_t tmp = name.find(".tmp.");
    if (tmp == std::string::npos || ours.count(name.substr(0, tmp)) == 0) continue;
    remove(Join(dir_, name), false, Join(dir_, name));
    if (!ec) --kept;
  }
  if (kept == 0) {
    // A hostPath mounted exactly here is a mount point (EBUSY); the host keeps the empty dir.
    if (::rmdir(dir_.c_str()) == 0) {
      removed.push_back(dir_ + "/");
    } else if (errno != EBUSY) {
      removed.push_back("cannot remove " + dir_ + "/: " + std::strerror(errno));
    }
  }
  return removed;
}

}  // namespace rdmastack::client
