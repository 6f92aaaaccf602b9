#include "node/probe/netdev_probe.h"

#include "node/probe/parsers.h"
#include "node/probe/pci_device.h"

namespace rdmastack::node {
namespace {

constexpr char kNetdevArea[] = "netdev";
constexpr int kArphrdInfiniband = 32;

// Name of the directory a link resolves to (device -> 0000:3b:00.0, master -> bond0).
std::string LinkName(const HostRoot& root, const std::string& rel) {
  auto target = root.Resolve(rel);
  if (!target.ok()) return "";
  return target->substr(target->rfind('/') + 1);
}

NetDev ReadNetDev(const HostRoot& root, const std::string& name, std::vector<ProbeIssue>* issues) {
  const std::string dir = "sys/class/net/" + name;
  NetDev n;
  n.name = name;
  for (auto [file, slot] : {std::pair{"type", &n.type}, std::pair{"mtu", &n.mtu}}) {
    auto text = root.ReadAttr(dir + "/" + file);
    auto value = text.ok() ? ParseDecimal(*text) : StatusOr<int64_t>(text.status());
    if (!value.ok() || *value < 0 || *value > 1'000'000) {
      issues->push_back({kNetdevArea, root.Path(dir + "/" + file),
                         value.ok() ? "out of range" : value.status().message()});
      continue;
    }
    *slot = static_cast<int>(*value);
  }
  if (auto addr = root.ReadAttr(dir + "/address"); addr.ok()) n.address = *addr;
  if (root.IsSymlink(dir + "/device")) {
    std::string last = LinkName(root, dir + "/device");
    if (IsPciAddress(last)) n.pci_address = last;
  }
  if (root.IsSymlink(dir + "/master")) n.master = LinkName(root, dir + "/master");
  if (root.IsDirectory(dir + "/bonding")) {
    if (auto s = root.ReadAttr(dir + "/bonding/slaves"); s.ok()) {
      for (const auto slave : SplitNonEmpty(*s, ' ')) n.slaves.emplace_back(slave);
    }
    if (auto a = root.ReadAttr(dir + "/bonding/active_slave"); a.ok()) n.active_slave = *a;
  }
  if (auto entries = root.ListDir(dir); entries.ok()) {
    for (const auto& e : *entries) {
      if (e.rfind("lower_", 0) == 0) n.lower = e.substr(6);
    }
  }
  if (!n.slaves.empty() || root.IsDirectory(dir + "/bonding")) {
    n.kind = "bond";
  } else if (!n.lower.empty()) {
    n.kind = "vlan";
  } else if (n.type == kArphrdInfiniband) {
    n.kind = "ipoib";
  } else if (!n.pci_address.empty()) {
    n.kind = "physical";
  } else {
    n.kind = "virtual";
  }
  return n;
}

// A port whose GID table carries `gid` (IPoIB).
bool FindPortByGid(const std::vector<RdmaDevice>& rdma, const std::string& gid, std::string* dev,
                   int* port, int* index) {
  for (const auto& d : rdma) {
    for (const auto& p : d.ports) {
      for (const auto& g : p.gids) {
        if (g.gid != gid) continue;
        *dev = d.name;
        *port = p.number;
        *index = g.index;
        return true;
      }
    }
  }
  return false;
}

void MapIpoib(const std::vector<RdmaDevice>& rdma, NetDev* n) {
  auto gid = GidFromIpoibAddress(n->address);
  if (!gid.ok()) return;
  int index = -1;
  if (!FindPortByGid(rdma, FormatGid(*gid), &n->rdma_device, &n->rdma_port, &index)) return;
  // rdma_cm resolves every address of an IPoIB netdev to the port GID.
  for (auto& b : n->ipv4) b.gid_index = index;
}

void MapRoce(const std::vector<RdmaDevice>& rdma, NetDev* n) {
  for (const auto& d : rdma) {
    for (const auto& p : d.ports) {
      bool carries = false;
      for (const auto& g : p.gids) carries = carries || g.netdev == n->name;
      if (!carries) continue;
      if (n->rdma_device.empty()) {
        n->rdma_device = d.name;
        n->rdma_port = p.number;
      }
      for (auto& b : n->ipv4) {
        auto want = Ipv4MappedGid(b.address);
        if (!want.ok() || b.gid_index >= 0) continue;
        for (const auto& g : p.gids) {
          if (g.netdev == n->name && g.gid == *want && g.type == "RoCE v2") {
            b.gid_index = g.index;
            break;
          }
        }
      }
    }
  }
}

// Without GIDs (port down, no address yet) the PCI function still names the device.
void MapByPciFunction(const std::vector<RdmaDevice>& rdma, NetDev* n) {
  if (!n->rdma_device.empty() || n->pci_address.empty()) return;
  for (const auto& d : rdma) {
    if (d.pci_address == n->pci_address && !d.ports.empty()) {
      n->rdma_device = d.name;
      n->rdma_port = d.ports.front().number;
      return;
    }
  }
}

}  // namespace

int RoceMtuFromNetdevMtu(int netdev_mtu) {
  const int payload = netdev_mtu - 96;
  for (int mtu : {4096, 2048, 1024, 512, 256}) {
    if (payload >= mtu) return mtu;
  }
  return 0;
}

void MapNetDevsToRdma(const std::vector<RdmaDevice>& rdma, std::vector<NetDev>* netdevs) {
  for (auto& n : *netdevs) {
    if (n.type == kArphrdInfiniband) {
      MapIpoib(rdma, &n);
    } else {
      MapRoce(rdma, &n);
    }
    MapByPciFunction(rdma, &n);
  }
}

std::vector<NetDev> ProbeNetDevs(const HostRoot& root, const std::vector<InterfaceAddress>& addrs,
                                 const std::vector<RdmaDevice>& rdma,
                                 std::vector<ProbeIssue>* issues) {
  std::vector<NetDev> out;
  auto names = root.ListDir("sys/class/net");
  if (!names.ok()) {
    if (names.status().code() != StatusCode::kNotFound) {
      issues->push_back({kNetdevArea, root.Path("sys/class/net"), names.status().message()});
    }
    return out;
  }
  for (const auto& name : *names) {
    if (name == "lo" || name == "bonding_masters") continue;
    if (!root.IsDirectory("sys/class/net/" + name)) {
      issues->push_back(
          {kNetdevArea, root.Path("sys/class/net/" + name), "not a directory (dangling link?)"});
      continue;
    }
    NetDev n = ReadNetDev(root, name, issues);
    for (const auto& a : addrs) {
      if (a.ifname == name)
        n.ipv4.push_back({a.address + "/" + std::to_string(a.prefix), a.address, -1});
    }
    out.push_back(std::move(n));
  }
  MapNetDevsToRdma(rdma, &out);
  return out;
}

}  // namespace rdmastack::node
