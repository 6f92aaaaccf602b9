#include "agents/client/library_plan.h"

#include <cstdio>
#include <cstring>
#include <set>

#include "lib/elf/elf_dynamic.h"

namespace rdmastack::client {
namespace {

// How many problems a refusal lists; the rest are counted.
constexpr size_t kMaxListedProblems = 8;

std::string Quoted(const std::string& name) {
  return "'" + ShowName(name) + "'";
}

std::string Octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

std::string Kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

// glibc's version order ("so.1.10" after "so.1.9"): the newest file wins a SONAME.
bool NewerVersion(const std::string& a, const std::string& b) {
  return ::strverscmp(a.c_str(), b.c_str()) > 0;
}

class Problems {
 public:
  void Add(std::string p) { list_.push_back(std::move(p)); }
  bool empty() const { return list_.empty(); }
  Status Refusal() const {
    // What happens and what to do first: the operator keeps the start of a long line.
    std::string out =
        "the library image is refused. Nothing from the image is installed; what was installed "
        "before stays. Fix the image clientLibrary.image names: ";
    for (size_t i = 0; i < list_.size() && i < kMaxListedProblems; ++i) {
      out += (i ? "; " : "") + list_[i];
    }
    if (list_.size() > kMaxListedProblems) {
      out += "; and " + std::to_string(list_.size() - kMaxListedProblems) + " more";
    }
    return FailedPreconditionError(out);
  }

 private:
  std::vector<std::string> list_;
};

// A regular file: its mode, its cost, the names inside it. Adds what is wrong to `problems`.
void CheckFile(const HostDir& source, const std::string& name, const LibraryBudget& budget,
               LibraryPlan* plan, std::map<std::string, std::string>* soname_of,
               Problems* problems) {
  StatusOr<OpenedFile> f = source.OpenRegular(name);
  if (!f.ok()) {
    problems->Add(Quoted(name) + ": " + f.status().message());
    return;
  }
  const mode_t mode = f->st.st_mode;
  if ((mode & (S_ISUID | S_ISGID | S_ISVTX)) != 0) {
    problems->Add(Quoted(name) + " has mode " + Octal(mode) +
                  ": setuid, setgid and sticky files are refused");
  } else if ((mode & S_IWOTH) != 0) {
    problems->Add(Quoted(name) + " has mode " + Octal(mode) + ": world-writable files are refused");
  }
  const uint64_t charged = ChargedBytes(f->st);
  plan->charged_bytes += charged;
  if (charged > budget.max_file_bytes) {
    problems->Add(Quoted(name) + " is " + FormatBytes(static_cast<uint64_t>(f->st.st_size)) +
                  " long with " + FormatBytes(static_cast<uint64_t>(f->st.st_blocks) * 512) +
                  " allocated, over the per-file budget of " + FormatBytes(budget.max_file_bytes) +
                  " (--max-library-file-size)");
    return;  // not parsed: nothing of it is read
  }
  // Parsed from the descriptor it was checked through, as it will be copied.
  StatusOr<elf::ElfDynamicNames> elf =
      elf::ReadElfDynamicNamesFromFd(f->fd.get(), static_cast<uint64_t>(f->st.st_size));
  if (elf.ok()) {
    if (!elf->soname.empty()) {
      if (Status s = CheckPlainName(elf->soname); !s.ok()) {
        problems->Add(Quoted(name) + ": its ELF SONAME " + s.message());
      } else {
        (*soname_of)[name] = elf->soname;
      }
    }
    for (const std::string& needed : elf->needed) {
      if (Status s = CheckPlainName(needed); !s.ok()) {
        problems->Add(Quoted(name) + ": its ELF NEEDED entry " + s.message());
      }
    }
  }
  plan->files.push_back({name, std::move(*f), DefangedMode(mode)});
}

}  // namespace

bool LibraryPlan::Wants(const std::string& name) const {
  if (links.count(name) != 0) return true;
  for (const PlannedFile& f : files) {
    if (f.name == name) return true;
  }
  return false;
}

std::string FormatBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double v = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (v >= 1024 && unit + 1 < std::size(kUnits)) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf,
                v == static_cast<double>(static_cast<uint64_t>(v)) ? "%.0f %s" : "%.1f %s", v,
                kUnits[unit]);
  return buf;
}

StatusOr<LibraryPlan> PlanLibrary(const HostDir& source, const LibraryBudget& budget) {
  Problems problems;
  StatusOr<std::vector<std::string>> names = source.List(kMaxLibraryEntries);
  if (!names.ok()) {
    if (names.status().code() != StatusCode::kResourceExhausted) return names.status();
    problems.Add("it holds more than " + std::to_string(kMaxLibraryEntries) + " entries");
    return problems.Refusal();
  }
  const std::set<std::string> present(names->begin(), names->end());
  LibraryPlan plan;
  std::map<std::string, std::string> soname_of;  // file -> its SONAME
  for (const std::string& name : *names) {
    if (Status s = CheckPlainName(name); !s.ok()) {
      problems.Add("an entry's name: " + s.message());
      continue;
    }
    StatusOr<struct stat> st = source.Lstat(name);
    if (!st.ok()) {
      problems.Add(Quoted(name) + ": " + st.status().message());
      continue;
    }
    if (S_ISLNK(st->st_mode)) {
      // The client sees the node's root at /host: a link may only name a file beside it, which
      // also keeps working where the applications read it.
      StatusOr<std::string> target = source.ReadLink(name);
      if (!target.ok()) {
        problems.Add(Quoted(name) + ": " + target.status().message());
      } else if (Status s = CheckPlainName(*target); !s.ok()) {
        problems.Add("the link " + Quoted(name) + " -> " + Quoted(*target) +
                     " leaves the image (a link may only name a file beside it)");
      } else if (present.count(*target) == 0) {
        problems.Add("the link " + Quoted(name) + " -> " + Quoted(*target) +
                     " names nothing in the image");
      } else {
        plan.links[name] = *target;
      }
      continue;
    }
    if (!S_ISREG(st->st_mode)) {
      problems.Add(Quoted(name) + " is " + Kind(st->st_mode) +
                   "; only regular files and links are taken");
      continue;
    }
    CheckFile(source, name, budget, &plan, &soname_of, &problems);
  }
  if (plan.charged_bytes > budget.max_total_bytes) {
    problems.Add("its files take " + FormatBytes(plan.charged_bytes) +
                 ", over the per-image budget of " + FormatBytes(budget.max_total_bytes) +
                 " (--max-library-size)");
  }
  if (!problems.empty()) return problems.Refusal();
  // Applications link the SONAME (libcuobjclient.so.1); an image may ship only the full version.
  std::map<std::string, std::string> soname_owner;
  for (const auto& [file, soname] : soname_of) {
    if (soname == file || present.count(soname) != 0) continue;
    std::string& owner = soname_owner[soname];
    if (owner.empty() || NewerVersion(file, owner)) owner = file;
  }
  for (const auto& [soname, owner] : soname_owner) plan.links[soname] = owner;
  return plan;
}

}  // namespace rdmastack::client
