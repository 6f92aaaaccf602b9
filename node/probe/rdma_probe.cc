#include "node/probe/rdma_probe.h"

#include <algorithm>
#include <map>

#include "node/probe/parsers.h"
#include "node/probe/pci_device.h"
#include "node/probe/pci_ids.h"
#include "node/probe/pci_topology.h"
#include "node/probe/port_counters.h"

namespace rdmastack::node {
namespace {

constexpr char kRdmaArea[] = "rdma";
// A counter that cannot be read says nothing about whether RDMA works, so its issue has an area
// of its own that no check gates on (it shows in probe.read-errors).
constexpr char kCountersArea[] = "counters";
constexpr int kMaxGids = 1024;

// Reads an attribute that must be there; records an issue and returns "" otherwise.
std::string Required(const HostRoot& root, const std::string& rel,
                     std::vector<ProbeIssue>* issues) {
  auto v = root.ReadAttr(rel);
  if (!v.ok()) {
    issues->push_back({kRdmaArea, root.Path(rel), v.status().message()});
    return "";
  }
  return *v;
}

// Attributes that are legitimately absent or unreadable (driver-specific files, EINVAL on
// empty GID attribute slots): absence is a value, not a problem.
std::string Optional(const HostRoot& root, const std::string& rel) {
  auto v = root.ReadAttr(rel);
  return v.ok() ? *v : "";
}

void ReadState(const HostRoot& root, const std::string& rel, int* code, std::string* name,
               std::vector<ProbeIssue>* issues) {
  auto text = root.ReadAttr(rel);
  if (!text.ok()) {
    issues->push_back({kRdmaArea, root.Path(rel), text.status().message()});
    return;
  }
  auto st = ParseNumberedState(*text);
  if (!st.ok()) {
    issues->push_back({kRdmaArea, root.Path(rel), st.status().message()});
    return;
  }
  *code = st->code;
  *name = st->name;
}

std::vector<GidEntry> ReadGids(const HostRoot& root, const std::string& port_dir,
                               std::vector<ProbeIssue>* issues) {
  std::vector<GidEntry> out;
  auto names = root.ListDir(port_dir + "/gids");
  if (!names.ok()) {
    issues->push_back({kRdmaArea, root.Path(port_dir + "/gids"), names.status().message()});
    return out;
  }
  std::map<int, std::string> by_index;  // numeric order, not lexical
  for (const auto& n : *names) {
    auto idx = ParseDecimal(n);
    if (idx.ok() && *idx >= 0 && *idx < kMaxGids) by_index[static_cast<int>(*idx)] = n;
  }
  for (const auto& [idx, name] : by_index) {
    const std::string rel = port_dir + "/gids/" + name;
    auto text = root.ReadAttr(rel);
    if (!text.ok()) continue;  // containers may refuse unmapped indexes (EINVAL)
    auto gid = ParseGid(*text);
    if (!gid.ok()) {
      issues->push_back({kRdmaArea, root.Path(rel), gid.status().message()});
      continue;
    }
    if (GidIsZero(*gid)) continue;
    GidEntry e;
    e.index = idx;
    e.gid = FormatGid(*gid);
    e.type = Optional(root, port_dir + "/gid_attrs/types/" + name);
    e.netdev = Optional(root, port_dir + "/gid_attrs/ndevs/" + name);
    out.push_back(std::move(e));
  }
  return out;
}

// The counters of kPortCounters the port has. A missing file is a counter this device or driver
// does not keep (hw_counters/ is the driver's own set), not a problem.
std::vector<PortCounter> ReadCounters(const HostRoot& root, const std::string& port_dir,
                                      std::vector<ProbeIssue>* issues) {
  std::vector<PortCounter> out;
  for (const PortCounterSpec& spec : kPortCounters) {
    const std::string rel =
        port_dir + "/" + std::string(spec.directory) + "/" + std::string(spec.name);
    if (!root.Exists(rel)) continue;
    auto text = root.ReadAttr(rel);
    auto value = text.ok() ? ParseCounter(*text) : StatusOr<uint64_t>(text.status());
    if (!value.ok()) {
      issues->push_back({kCountersArea, root.Path(rel), value.status().message()});
      continue;
    }
    out.push_back({std::string(spec.name), *value});
  }
  return out;
}

RdmaPort ReadPort(const HostRoot& root, const std::string& dev_dir, const std::string& port_name,
                  int number, std::vector<ProbeIssue>* issues) {
  const std::string dir = dev_dir + "/ports/" + port_name;
  RdmaPort p;
  p.number = number;
  ReadState(root, dir + "/state", &p.state_code, &p.state, issues);
  ReadState(root, dir + "/phys_state", &p.phys_state_code, &p.phys_state, issues);
  p.link_layer = Required(root, dir + "/link_layer", issues);
  p.rate = Optional(root, dir + "/rate");
  p.lid = Optional(root, dir + "/lid");
  p.sm_lid = Optional(root, dir + "/sm_lid");
  p.gids = ReadGids(root, dir, issues);
  p.counters = ReadCounters(root, dir, issues);
  return p;
}

void Classify(const HostRoot& root, RdmaDevice* d, std::vector<ProbeIssue>* issues) {
  if (d->pci_address.empty()) return;
  PciFunction fn;
  if (!ReadPciFunction(root, d->pci_address, kRdmaArea, &fn, issues)) return;
  d->pci_path = fn.path;
  d->pcie_root = PcieRoot(fn.path);
  d->vendor_id = HexId(fn.vendor);
  d->device_id = HexId(fn.device);
  d->numa_node = fn.numa_node;
  if (fn.vendor != kMellanoxVendor) {
    d->generation = "non-Mellanox (" + d->vendor_id + ":" + d->device_id + ")";
    return;
  }
  NicGeneration gen = NicGenerationFromDeviceId(fn.device);
  d->virtual_function = gen.virtual_function || fn.has_physfn;
  if (gen.generic_vf || gen.rank == 0) {
    // Shared VF id (or unknown id): the firmware major still names the family.
    int fw_major = 0;
    auto dot = d->firmware.find('.');
    auto v = ParseDecimal(d->firmware.substr(0, dot));
    if (dot != std::string::npos && v.ok() && *v > 0 && *v < 1000) fw_major = static_cast<int>(*v);
    NicGeneration by_fw = NicGenerationFromFirmware(fw_major);
    if (by_fw.rank > 0) {
      gen.rank = by_fw.rank;
      gen.name = by_fw.name + (d->virtual_function ? " VF" : "");
    } else if (gen.name.empty()) {
      gen.name = "unknown Mellanox " + d->device_id;
    }
  }
  d->generation = gen.name;
  d->generation_rank = gen.rank;
}

std::map<std::string, std::string> UverbsByDevice(const HostRoot& root) {
  std::map<std::string, std::string> out;
  auto names = root.ListDir("sys/class/infiniband_verbs");
  if (!names.ok()) return out;
  for (const auto& n : *names) {
    if (n.rfind("uverbs", 0) != 0) continue;
    auto ibdev = root.ReadAttr("sys/class/infiniband_verbs/" + n + "/ibdev");
    if (ibdev.ok()) out[*ibdev] = n;
  }
  return out;
}

}  // namespace

std::vector<RdmaDevice> ProbeRdmaDevices(const HostRoot& root, std::vector<ProbeIssue>* issues) {
  std::vector<RdmaDevice> out;
  auto names = root.ListDir("sys/class/infiniband");
  if (!names.ok()) {
    if (names.status().code() != StatusCode::kNotFound) {
      issues->push_back({kRdmaArea, root.Path("sys/class/infiniband"), names.status().message()});
    }
    return out;
  }
  std::sort(names->begin(), names->end(), NaturalLess);  // mlx5_2 before mlx5_10
  const auto uverbs = UverbsByDevice(root);
  for (const auto& name : *names) {
    const std::string dir = "sys/class/infiniband/" + name;
    if (!root.IsDirectory(dir)) {
      issues->push_back({kRdmaArea, root.Path(dir), "not a directory (dangling or looping link?)"});
      continue;
    }
    RdmaDevice d;
    d.name = name;
    d.firmware = Optional(root, dir + "/fw_ver");
    d.node_guid = Optional(root, dir + "/node_guid");
    d.hca_type = Optional(root, dir + "/hca_type");
    if (auto it = uverbs.find(name); it != uverbs.end()) d.uverbs = it->second;
    if (root.IsSymlink(dir + "/device")) {
      auto target = root.Resolve(dir + "/device");
      if (!target.ok()) {
        issues->push_back({kRdmaArea, root.Path(dir + "/device"), target.status().message()});
      } else {
        std::string last = target->substr(target->rfind('/') + 1);
        if (IsPciAddress(last)) d.pci_address = last;
      }
    }
    d.soft = d.pci_address.empty() && root.Exists(dir + "/parent");
    Classify(root, &d, issues);
    auto ports = root.ListDir(dir + "/ports");
    if (!ports.ok()) {
      issues->push_back({kRdmaArea, root.Path(dir + "/ports"), ports.status().message()});
    } else {
      for (const auto& p : *ports) {
        auto num = ParseDecimal(p);
        if (!num.ok() || *num < 1 || *num > 255) {
          issues->push_back(
              {kRdmaArea, root.Path(dir + "/ports/" + p), "port name is not a number"});
          continue;
        }
        d.ports.push_back(ReadPort(root, dir, p, static_cast<int>(*num), issues));
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace rdmastack::node
