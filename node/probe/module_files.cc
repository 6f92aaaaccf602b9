#include "node/probe/module_files.h"

#include <memory>
#include <string_view>

#include "lib/elf/elf_dynamic.h"
#include "node/probe/module_info.h"
#include "node/probe/system_probe.h"

namespace rdmastack::node {
namespace {

// The file's srcversion, or why it cannot be had (then `*not_read` says so).
std::string FileSrcversion(const HostRoot& root, const std::string& modules_dir,
                           const std::string& path, std::string* not_read) {
  if (!std::string_view(path).ends_with(".ko")) {
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
  for (const std::string& name : ModuleFilesWatched()) {
    if (!drivers.Loaded(name)) continue;
    auto srcversion = root.ReadAttr("sys/module/" + name + "/srcversion");
    if (!srcversion.ok() || srcversion->empty()) continue;  // built in, or no srcversion
    out.push_back({name, *srcversion, "", "", ""});
  }
  if (out.empty()) return out;
  const std::optional<std::string> dep_file = ModulesDepFile(root, kernel);
  if (!dep_file) {
    for (ModuleFile& m : out) m.not_read = "no lib/modules/" + kernel.release + "/modules.dep";
    return out;
  }
  std::vector<std::string> names;
  for (const ModuleFile& m : out) names.push_back(m.name);
  auto paths = ModulePathsInModulesDep(root, *dep_file, names);
  if (!paths.ok()) {
    issues->push_back({"modules", root.Path(*dep_file), paths.status().message()});
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
