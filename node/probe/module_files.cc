#include "node/probe/module_files.h"

#include <map>
#include <memory>

#include "lib/elf/elf_dynamic.h"
#include "node/probe/module_info.h"
#include "node/probe/system_probe.h"

namespace rdmastack::node {
namespace {

// The path modules.dep gives for each of `names` (the first line for it: depmod writes one).
// Relative paths are below the modules.dep's folder; old depmod wrote absolute ones.
StatusOr<std::map<std::string, std::string>> PathsInModulesDep(
    const HostRoot& root, const std::string& dep_file, const std::vector<std::string>& names) {
  std::map<std::string, std::string> paths;
  Status st = root.ScanLines(dep_file, kModulesDepLimit, [&](std::string_view line) {
    const std::string name = ModuleNameOfDepLine(line);
    for (const std::string& wanted : names) {
      if (name == wanted && paths.count(name) == 0) {
        paths[name] = std::string(line.substr(0, line.find(':')));
      }
    }
    return paths.size() < names.size();
  });
  if (!st.ok()) return st;
  return paths;
}

bool EndsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// The file's srcversion, or why it cannot be had (then `*not_read` says so).
std::string FileSrcversion(const HostRoot& root, const std::string& modules_dir,
                           const std::string& path, std::string* not_read) {
  if (!EndsWith(path, ".ko")) {
    *not_read = "compressed (" + path.substr(path.rfind('.')) + "), not read";
    return "";
  }
  if (path.find("..") != std::string::npos) {
    *not_read = "a path with '..' in modules.dep, not followed";
    return "";
  }
  const std::string rel = path.front() == '/' ? path.substr(1) : modules_dir + "/" + path;
  StatusOr<std::unique_ptr<elf::ByteSource>> file = elf::OpenFileByteSource(root.Path(rel));
  if (!file.ok()) {
    *not_read = file.status().message();
    return "";
  }
  StatusOr<ModuleInfo> info = ReadModuleInfo(**file);
  if (!info.ok()) {
    *not_read = root.Path(rel) + ": " + info.status().message();
    return "";
  }
  if (info->srcversion.empty()) *not_read = root.Path(rel) + ": .modinfo has no srcversion";
  return info->srcversion;
}

}  // namespace

const std::vector<std::string>& ModuleFilesWatched() {
  static const std::vector<std::string> kModules = {"ib_core", "ib_uverbs", "mlx5_ib", "nvidia",
                                                    "nvidia_peermem"};
  return kModules;
}

std::vector<ModuleFile> ProbeModuleFiles(const HostRoot& root, const KernelFacts& kernel,
                                         const DriverFacts& drivers,
                                         std::vector<ProbeIssue>* issues) {
  std::vector<ModuleFile> out;
  if (!drivers.Loaded("nvidia_peermem")) return out;
  std::vector<std::string> names;
  for (const std::string& name : ModuleFilesWatched()) {
    if (!drivers.Loaded(name)) continue;
    auto srcversion = root.ReadAttr("sys/module/" + name + "/srcversion");
    if (!srcversion.ok() || srcversion->empty()) continue;  // built in, or no srcversion
    out.push_back({name, *srcversion, "", "", ""});
    names.push_back(name);
  }
  if (out.empty()) return out;
  const std::optional<std::string> dep_file = ModulesDepFile(root, kernel);
  StatusOr<std::map<std::string, std::string>> paths =
      dep_file ? PathsInModulesDep(root, *dep_file, names)
               : StatusOr<std::map<std::string, std::string>>(
                     NotFoundError("no lib/modules/" + kernel.release + "/modules.dep"));
  if (!paths.ok()) {
    if (dep_file) issues->push_back({"modules", root.Path(*dep_file), paths.status().message()});
    for (ModuleFile& m : out) m.not_read = paths.status().message();
    return out;
  }
  const std::string modules_dir = dep_file->substr(0, dep_file->rfind('/'));
  for (ModuleFile& m : out) {
    auto it = paths->find(m.name);
    if (it == paths->end()) {
      m.not_read = "not in " + root.Path(*dep_file);
      continue;
    }
    m.path = it->second;
    m.file_srcversion = FileSrcversion(root, modules_dir, m.path, &m.not_read);
  }
  return out;
}

}  // namespace rdmastack::node
