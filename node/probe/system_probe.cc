#include "node/probe/system_probe.h"

#include <algorithm>
#include <mutex>
#include <set>

#include "node/probe/parsers.h"

namespace rdmastack::node {
namespace {

constexpr size_t kProcModulesLimit = 4 << 20;
constexpr size_t kKallsymsLimit = 256 << 20;

// Scanning /proc/kallsyms makes the kernel format every symbol: ~50 ms of system CPU on a real
// H200 host, nearly all of a probe. A symbol can only appear or vanish with a module load or
// unload, so the answer is remembered per root and /proc/modules content (which lists load
// addresses, so a reload changes it too).
struct KallsymsMemo {
  std::mutex mu;
  std::string key;
  bool found = false;
};

KallsymsMemo& Memo() {
  static KallsymsMemo memo;
  return memo;
}

// Whether the running kernel exports ib_register_peer_memory_client (MOFED's PeerDirect API).
Status ScanKallsymsForPeerMemory(const HostRoot& root, bool* found) {
  const auto modules = root.ReadText("proc/modules", kProcModulesLimit);
  const std::string key = root.root() + '\n' + (modules.ok() ? *modules : std::string());
  KallsymsMemo& memo = Memo();
  std::lock_guard<std::mutex> lock(memo.mu);
  if (modules.ok() && memo.key == key) {
    *found = memo.found;
    return OkStatus();
  }
  *found = false;
  Status st = root.ScanLines("proc/kallsyms", kKallsymsLimit, [&](std::string_view line) {
    *found = line.find(" ib_register_peer_memory_client") != std::string_view::npos;
    return !*found;
  });
  if (st.ok() && modules.ok()) {
    memo.key = key;
    memo.found = *found;
  }
  return st;
}

void ReadModules(const HostRoot& root, DriverFacts* d, std::vector<ProbeIssue>* issues) {
  std::set<std::string> loaded;
  auto text = root.ReadText("proc/modules", kProcModulesLimit);
  bool have_proc = false;
  if (!text.ok()) {
    issues->push_back({"modules", root.Path("proc/modules"), text.status().message()});
  } else if (auto mods = ParseProcModules(*text); !mods.ok()) {
    issues->push_back({"modules", root.Path("proc/modules"), mods.status().message()});
  } else {
    have_proc = true;
    for (const auto& m : *mods) loaded.insert(m.name);
  }
  for (const auto& name : WatchedModules()) {
    Module m;
    m.name = name;
    const std::string dir = "sys/module/" + name;
    if (have_proc) {
      m.loaded = loaded.count(name) > 0;
    } else if (auto st = root.ReadAttr(dir + "/initstate"); st.ok()) {
      m.loaded = *st == "live";  // /proc/modules unreadable: fall back to sysfs
    }
    if (auto v = root.ReadAttr(dir + "/version"); v.ok()) m.version = *v;
    if (auto t = root.ReadAttr(dir + "/taint"); t.ok()) m.taint = *t;
    d->modules.push_back(std::move(m));
  }
}

void DecideIbCoreFlavor(const HostRoot& root, DriverFacts* d, std::vector<ProbeIssue>* issues) {
  const Module* ib_core = d->Find("ib_core");
  const Module* mlx5 = d->Find("mlx5_core");
  if (mlx5 && mlx5->loaded) {
    if (auto v = ParseOfedVersion(mlx5->version)) d->ofed_version = v->text;
  }
  if (d->Loaded("mlx_compat")) d->ib_core_flavor_signals.push_back("mlx_compat loaded");
  if (!d->ofed_version.empty()) {
    d->ib_core_flavor_signals.push_back("mlx5_core version " + d->ofed_version);
  }
  if (ib_core && ib_core->taint.find('O') != std::string::npos) {
    d->ib_core_flavor_signals.push_back("ib_core out-of-tree (taint " + ib_core->taint + ")");
  }
  if (root.IsDirectory("sys/kernel/mm/memory_peers")) {
    d->peer_memory_api = true;
    d->ib_core_flavor_signals.push_back("memory_peers present");
  }
  if (!d->peer_memory_api && root.Exists("proc/kallsyms")) {
    bool found = false;
    Status st = ScanKallsymsForPeerMemory(root, &found);
    if (!st.ok()) issues->push_back({"modules", root.Path("proc/kallsyms"), st.message()});
    if (found) {
      d->peer_memory_api = true;
      d->ib_core_flavor_signals.push_back("ib_register_peer_memory_client exported");
    }
  }
  const bool ib_loaded = ib_core && ib_core->loaded;
  if (!ib_loaded && !d->Loaded("mlx5_core")) return;
  // Out-of-tree signals decide MOFED; peer-memory symbols alone do not (Ubuntu HWE ships them).
  const bool mofed = d->Loaded("mlx_compat") || !d->ofed_version.empty() ||
                     (ib_core && ib_core->taint.find('O') != std::string::npos);
  d->ib_core_flavor = mofed ? "MOFED" : "Inbox";
}

void ReadNvidiaDriver(const HostRoot& root, DriverFacts* d, std::vector<ProbeIssue>* issues) {
  const std::string file = "proc/driver/nvidia/version";
  if (root.Exists(file)) {
    auto text = root.ReadText(file, 64 << 10);
    auto info =
        text.ok() ? ParseNvidiaVersionFile(*text) : StatusOr<NvidiaDriverInfo>(text.status());
    if (info.ok()) {
      d->nvidia_driver_version = info->version;
      d->nvidia_module_flavor = info->open ? "Open" : "Proprietary";
      return;
    }
    issues->push_back({"modules", root.Path(file), info.status().message()});
  }
  const Module* nv = d->Find("nvidia");
  if (nv == nullptr || !nv->loaded) return;
  d->nvidia_driver_version = nv->version;
  // The proprietary module declares a non-GPL licence and taints with P; the open one does not.
  if (!nv->taint.empty() || root.Exists("sys/module/nvidia/taint")) {
    d->nvidia_module_flavor = nv->taint.find('P') != std::string::npos ? "Proprietary" : "Open";
  }
}

void ReadNetnsMode(const HostRoot& root, DriverFacts* d, std::vector<ProbeIssue>* issues) {
  const std::string file = "sys/module/ib_core/parameters/netns_mode";
  auto v = root.ReadAttr(file);
  if (!v.ok()) {
    if (v.status().code() != StatusCode::kNotFound) {
      issues->push_back({"modules", root.Path(file), v.status().message()});
    }
    return;
  }
  if (*v == "Y" || *v == "1") {
    d->rdma_netns_mode = "shared";
  } else if (*v == "N" || *v == "0") {
    d->rdma_netns_mode = "exclusive";
  } else {
    issues->push_back({"modules", root.Path(file), "want Y or N, got '" + *v + "'"});
  }
}

void ReadDevInfiniband(const HostRoot& root, DriverFacts* d, std::vector<ProbeIssue>* issues) {
  auto names = root.ListDir("dev/infiniband");
  if (!names.ok()) {
    if (names.status().code() != StatusCode::kNotFound) {
      issues->push_back({"devfiles", root.Path("dev/infiniband"), names.status().message()});
    }
    return;
  }
  d->dev_infiniband_readable = true;
  d->dev_infiniband = *names;
}

}  // namespace

std::string ModuleNameOfDepLine(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return "";
  std::string_view path = line.substr(0, colon);
  if (const size_t slash = path.rfind('/'); slash != std::string_view::npos) {
    path.remove_prefix(slash + 1);
  }
  const size_t ko = path.find(".ko");
  if (ko == std::string_view::npos) return "";
  std::string name(path.substr(0, ko));
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

std::optional<std::string> ModulesDepFile(const HostRoot& root, const KernelFacts& kernel) {
  if (kernel.release.empty() || kernel.release.find('/') != std::string::npos) return std::nullopt;
  for (const char* base : {"lib/modules/", "usr/lib/modules/"}) {
    const std::string file = base + kernel.release + "/modules.dep";
    if (root.Exists(file)) return file;
  }
  return std::nullopt;
}

Tristate ProbeModuleInstalled(const HostRoot& root, const KernelFacts& kernel,
                              const DriverFacts& drivers, std::string_view module,
                              std::vector<ProbeIssue>* issues) {
  if (drivers.Loaded(module)) return Tristate::kYes;
  const std::optional<std::string> file = ModulesDepFile(root, kernel);
  if (!file) return Tristate::kUnknown;
  auto paths = ModulePathsInModulesDep(root, *file, {std::string(module)});
  if (!paths.ok()) {
    issues->push_back({"modules", root.Path(*file), paths.status().message()});
    return Tristate::kUnknown;
  }
  return paths->empty() ? Tristate::kNo : Tristate::kYes;
}

StatusOr<std::map<std::string, std::string>> ModulePathsInModulesDep(
    const HostRoot& root, const std::string& dep_file, const std::vector<std::string>& names) {
  std::map<std::string, std::string> paths;
  Status st = root.ScanLines(dep_file, kModulesDepLimit, [&](std::string_view line) {
    const std::string name = ModuleNameOfDepLine(line);
    if (std::find(names.begin(), names.end(), name) != names.end() && !paths.count(name)) {
      paths[name] = std::string(line.substr(0, line.find(':')));
    }
    return paths.size() < names.size();
  });
  if (!st.ok()) return st;
  return paths;
}

const std::vector<std::string>& WatchedModules() {
  static const std::vector<std::string> kModules = {
      "ib_core", "ib_uverbs",  "rdma_ucm", "rdma_cm",        "ib_umad",   "ib_ipoib",  "mlx5_core",
      "mlx5_ib", "mlx_compat", "nvidia",   "nvidia_peermem", "nvidia_fs", "nvme_rdma", "rdma_rxe"};
  return kModules;
}

KernelFacts ProbeKernel(const HostRoot& root, std::vector<ProbeIssue>* issues) {
  KernelFacts k;
  const std::string file = "proc/sys/kernel/osrelease";
  auto text = root.ReadAttr(file);
  if (!text.ok()) {
    issues->push_back({"kernel", root.Path(file), text.status().message()});
    return k;
  }
  k.release = *text;
  auto v = ParseKernelRelease(*text);
  if (!v.ok()) {
    issues->push_back({"kernel", root.Path(file), v.status().message()});
    return k;
  }
  k.major = v->major;
  k.minor = v->minor;
  return k;
}

DriverFacts ProbeDrivers(const HostRoot& root, std::vector<ProbeIssue>* issues) {
  DriverFacts d;
  ReadModules(root, &d, issues);
  DecideIbCoreFlavor(root, &d, issues);
  ReadNvidiaDriver(root, &d, issues);
  ReadNetnsMode(root, &d, issues);
  ReadDevInfiniband(root, &d, issues);
  return d;
}

}  // namespace rdmastack::node
