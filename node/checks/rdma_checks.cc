#include "node/checks/rdma_checks.h"

#include <algorithm>

#include "node/probe/ip_lookup.h"

namespace rdmastack::node::checks {
namespace {

std::string Describe(const RdmaDevice& d) {
  std::string out = d.name + " (" + (d.generation.empty() ? "unknown NIC" : d.generation);
  if (!d.pci_address.empty()) out += ", " + d.pci_address;
  return out + ")";
}

// Describe's words, for JoinGrouped: "ConnectX-7: mlx5_0 (0000:18:00.0), mlx5_1 (...)".
Said Grouped(const RdmaDevice& d, std::string_view suffix = "") {
  std::string item = d.name;
  if (!d.pci_address.empty()) item += " (" + d.pci_address + ")";
  return {Describe(d) + std::string(suffix), item,
          (d.generation.empty() ? "unknown NIC" : d.generation) + std::string(suffix)};
}

// "issm0 rdma_cm umad0 uverbs0", or with many devices "rdma_cm, issm0-7, umad0-11, uverbs0-11"
// (the numbers each kind has, as ranges).
std::string DescribeDeviceFiles(const std::vector<std::string>& files) {
  std::vector<std::pair<std::string, std::vector<int>>> kinds;
  std::vector<std::string> others;
  for (const std::string& f : files) {
    const size_t digits = f.find_last_not_of("0123456789") + 1;
    if (digits == 0 || digits == f.size() || f.size() - digits > 6) {
      others.push_back(f);
      continue;
    }
    const std::string kind = f.substr(0, digits);
    auto it =
        std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == kind; });
    if (it == kinds.end()) it = kinds.insert(kinds.end(), {kind, {}});
    it->second.push_back(std::stoi(f.substr(digits)));
  }
  size_t most = 0;
  for (const auto& k : kinds) most = std::max(most, k.second.size());
  if (most < 3) return JoinList(files, " ");
  std::vector<std::string> parts = others;
  for (auto& [kind, numbers] : kinds) {
    std::sort(numbers.begin(), numbers.end());
    std::string ranges;
    for (size_t i = 0; i < numbers.size();) {
      size_t j = i;
      while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
      if (!ranges.empty()) ranges += ",";
      ranges += std::to_string(numbers[i]) + (j > i ? "-" + std::to_string(numbers[j]) : "");
      i = j + 1;
    }
    parts.push_back(kind + ranges);
  }
  return JoinList(parts);
}

}  // namespace

CheckResult CheckKernel(const NodeFacts& facts) {
  if (facts.kernel.release.empty() || facts.kernel.major == 0) {
    return Unknown(
        "kernel.release", "KernelUnreadable",
        "kernel release unknown: " + DescribeIssues(facts, "kernel"),
        "Mount the host's /proc at <root>/proc so the agent can read sys/kernel/osrelease.");
  }
  return Pass("kernel.release", "kernel " + facts.kernel.release);
}

CheckResult CheckRdmaDevices(const NodeFacts& facts) {
  const char* id = "rdma.devices";
  auto hw = HardwareDevices(facts);
  if (!hw.empty()) {
    std::vector<Said> said;
    for (const RdmaDevice* d : hw) said.push_back(Grouped(*d));
    return Pass(id, JoinGrouped(said));
  }
  const std::string issues = DescribeIssues(facts, "rdma");
  if (!issues.empty()) {
    return Unknown(id, "RdmaSysfsUnreadable", "cannot list RDMA devices: " + issues,
                   "Make /sys/class/infiniband readable to the agent (mount the host /sys).");
  }
  std::string msg = "no RDMA device under " + facts.root + (facts.root == "/" ? "" : "/") +
                    "sys/class/infiniband";
  if (!facts.rdma_devices.empty())
    msg += " (only software RDMA devices such as rxe, which cannot do GPU-direct)";
  return Fail(id, "NoRdmaDevice", msg,
              "Install a ConnectX-5 or newer adapter and load its driver (mlx5_core, mlx5_ib), "
              "or remove this node from the pool/profile node selector.");
}

CheckResult CheckNicGeneration(const NodeFacts& facts) {
  const char* id = "rdma.nic-generation";
  std::vector<std::string> old, unknown;
  std::vector<Said> good;
  for (const RdmaDevice* d : HardwareDevices(facts)) {
    std::string label = Describe(*d) + (d->virtual_function ? " VF" : "");
    if (d->generation_rank >= 5) {
      good.push_back(Grouped(*d, d->virtual_function ? " VF" : ""));
    } else if (d->generation_rank > 0) {
      old.push_back(d->name + " is " + d->generation + " (" + d->device_id + ")");
    } else {
      unknown.push_back(label);
    }
  }
  const std::string remedy =
      "Use a ConnectX-5 or newer adapter (cuObject requires ConnectX-5+; DOCA-OFED dropped "
      "ConnectX-4).";
  if (!good.empty() && old.empty()) return Pass(id, JoinGrouped(good));
  if (!good.empty()) {
    return Warn(id, "UnsupportedNic",
                "usable: " + JoinGrouped(good) + "; ignored: " + JoinList(old),
                "Keep RDMA traffic on the supported adapters; " + remedy);
  }
  if (!old.empty()) {
    return Fail(id, "UnsupportedNic", JoinList(old) + "; cuObject needs ConnectX-5 or newer",
                remedy);
  }
  return Unknown(id, "UnknownNic",
                 "cannot tell the adapter generation of " + JoinList(unknown) + " " +
                     DescribeIssues(facts, "rdma", "/device"),
                 "Check that sys/bus/pci/devices/<bdf>/{vendor,device} are readable.");
}

CheckResult CheckPortState(const NodeFacts& facts) {
  const char* id = "rdma.port-state";
  std::vector<std::string> down, no_sm, unreadable;
  std::vector<Said> up;
  for (const RdmaDevice* d : UsableDevices(facts)) {
    for (const auto& p : d->ports) {
      const std::string name = PortName(*d, p);
      if (p.state_code < 0 || p.phys_state_code < 0) {
        unreadable.push_back(name);
      } else if (PortUsable(p)) {
        const std::string link = p.link_layer + " " + p.rate;
        up.push_back({name + " " + link, name, link});
      } else if (p.IsInfiniBand() && p.phys_state_code == 5) {
        no_sm.push_back(name + " is " + p.state + " with link up (sm_lid " + p.sm_lid + ")");
      } else {
        down.push_back(name + " is " + p.state + " (" + p.phys_state + ")");
      }
    }
  }
  std::vector<std::string> bad = down;
  bad.insert(bad.end(), no_sm.begin(), no_sm.end());
  if (!up.empty()) {
    if (bad.empty() && unreadable.empty()) return Pass(id, "up: " + JoinGrouped(up));
    std::vector<std::string> other = bad;
    for (const auto& u : unreadable) other.push_back(u + " unreadable");
    return Warn(id, "SomePortsDown", "up: " + JoinGrouped(up) + "; not up: " + JoinList(other),
                "Nothing needed if the up ports carry the RDMA IP; otherwise check cabling and the "
                "switch.");
  }
  if (!unreadable.empty() && bad.empty()) {
    return Unknown(
        id, "PortStateUnreadable",
        "state of " + JoinList(unreadable) +
            " unknown: " + DescribeIssues(facts, "rdma", "/ports/"),
        "Check that sys/class/infiniband/<dev>/ports/<n>/{state,phys_state} are readable.");
  }
  if (!no_sm.empty() && down.empty()) {
    return Fail(id, "NoSubnetManager", JoinList(no_sm),
                "Start a subnet manager on the fabric (opensm or the switch's SM) so the port "
                "becomes ACTIVE.");
  }
  return Fail(id, "LinkDown", JoinList(bad),
              "Check the cable and the switch port (Polling = no cable or no peer, Disabled = "
              "administratively down); `ibstat` / `ip link` should show the link up.");
}

CheckResult CheckRdmaModules(const NodeFacts& facts) {
  const char* id = "rdma.modules";
  if (facts.HasIssues("modules") && !facts.drivers.Loaded("ib_core") &&
      !facts.drivers.Loaded("ib_uverbs")) {
    const std::string issues = DescribeIssues(facts, "modules", "/proc/modules");
    if (!issues.empty()) {
      return Unknown(id, "ModulesUnreadable", "cannot tell which modules are loaded: " + issues,
                     "Mount the host's /proc so the agent can read proc/modules.");
    }
  }
  std::vector<std::string> missing;
  for (const char* m : {"ib_uverbs", "rdma_ucm"}) {
    if (!facts.drivers.Loaded(m)) missing.push_back(m);
  }
  if (missing.empty()) return Pass(id, "ib_uverbs and rdma_ucm loaded");
  return Fail(
      id, "RdmaModulesMissing", "not loaded: " + JoinList(missing),
      "modprobe " + JoinList(missing, " ") + " and list them in /etc/modules-load.d/rdma.conf.");
}

CheckResult CheckDeviceFiles(const NodeFacts& facts) {
  const char* id = "rdma.device-files";
  const auto& files = facts.drivers.dev_infiniband;
  auto has = [&](const std::string& f) {
    return std::find(files.begin(), files.end(), f) != files.end();
  };
  if (!facts.drivers.dev_infiniband_readable) {
    const std::string issues = DescribeIssues(facts, "devfiles");
    if (!issues.empty()) {
      return Unknown(id, "DeviceFilesUnreadable", issues,
                     "Mount the host's /dev/infiniband into the agent pod.");
    }
    return Fail(id, "DeviceFilesMissing", "no /dev/infiniband directory",
                "Load ib_uverbs and rdma_ucm (they create /dev/infiniband/uverbsN and rdma_cm).");
  }
  std::vector<std::string> missing;
  for (const RdmaDevice* d : UsableDevices(facts)) {
    if (d->uverbs.empty()) {
      missing.push_back("uverbs for " + d->name);
    } else if (!has(d->uverbs)) {
      missing.push_back(d->uverbs + " (" + d->name + ")");
    }
  }
  if (!has("rdma_cm")) missing.push_back("rdma_cm");
  if (!missing.empty()) {
    return Fail(id, "DeviceFilesMissing", "missing under /dev/infiniband: " + JoinList(missing),
                "modprobe ib_uverbs rdma_ucm; in a pod, mount /dev/infiniband (or request the RDMA "
                "device resource).");
  }
  return Pass(id, "/dev/infiniband: " + DescribeDeviceFiles(files));
}

CheckResult CheckUmad(const NodeFacts& facts) {
  const char* id = "rdma.umad";
  for (const auto& f : facts.drivers.dev_infiniband) {
    if (f.rfind("umad", 0) == 0) return Pass(id, "umad device files present");
  }
  if (!facts.drivers.dev_infiniband_readable) {
    return Unknown(id, "DeviceFilesUnreadable", "cannot list /dev/infiniband",
                   "Mount /dev/infiniband.");
  }
  return Warn(id, "UmadMissing", "no /dev/infiniband/umadN (ib_umad not loaded)",
              "modprobe ib_umad: k8s-rdma-shared-dev-plugin refuses devices without umad; MAD "
              "tools need it.");
}

std::vector<ClientGid> FindClientGids(const NodeFacts& facts, int gid_index) {
  std::vector<ClientGid> out;
  for (const RdmaDevice* d : UsableDevices(facts)) {
    for (const auto& p : d->ports) {
      if (!PortUsable(p)) continue;
      if (p.IsInfiniBand()) {
        for (const auto& g : p.gids) {
          if ((gid_index < 0 && g.index == 0) || g.index == gid_index) {
            out.push_back({d->name, p.number, g.index, p.link_layer, "", ""});
          }
        }
        continue;
      }
      for (const auto& n : facts.netdevs) {
        if (n.rdma_device != d->name || n.rdma_port != p.number) continue;
        for (const auto& b : n.ipv4) {
          if (b.gid_index < 0 || (gid_index >= 0 && b.gid_index != gid_index)) continue;
          out.push_back({d->name, p.number, b.gid_index, p.link_layer, n.name, b.address});
        }
      }
    }
  }
  return out;
}

CheckResult CheckClientGid(const NodeFacts& facts, int gid_index) {
  const char* id = "rdma.gid";
  std::vector<Said> found;
  for (const ClientGid& g : FindClientGids(facts, gid_index)) {
    const std::string port = g.device + "/" + std::to_string(g.port);
    const std::string gid =
        "GID " + std::to_string(g.gid_index) +
        (g.netdev.empty() ? " (InfiniBand)" : " for " + g.ipv4 + " on " + g.netdev + " (RoCE v2)");
    found.push_back({port + " " + gid, port, gid});
  }
  bool roce_port = false;
  for (const RdmaDevice* d : UsableDevices(facts)) {
    for (const auto& p : d->ports) roce_port = roce_port || (PortUsable(p) && !p.IsInfiniBand());
  }
  if (!found.empty()) return Pass(id, JoinGrouped(found));
  std::string want = gid_index >= 0 ? "GID index " + std::to_string(gid_index) : "a usable GID";
  if (roce_port) {
    return Fail(id, "NoUsableGid",
                "no up RoCE port has " + want + " for an IPv4 address of its netdev",
                "Assign the IPv4 address to the RoCE netdev (or its VLAN/bond) so the kernel adds "
                "a RoCE v2 "
                "GID, and leave gidIndex on auto unless the index is known.");
  }
  return Fail(id, "NoUsableGid", "no up port has " + want,
              gid_index > 0
                  ? "Native InfiniBand only has GID index 0; set gidIndex to 0 or auto."
                  : "Check the port GUID (VFs need an administratively assigned GUID) and the SM.");
}

CheckResult CheckGatewayIp(const NodeFacts& facts, const std::string& rdma_ip) {
  const char* id = "rdma.gateway-ip";
  std::vector<std::string> candidates;
  if (!rdma_ip.empty()) {
    candidates.push_back(rdma_ip);
  } else {
    for (const auto& n : facts.netdevs) {
      if (n.rdma_device.empty()) continue;
      for (const auto& b : n.ipv4) candidates.push_back(b.address);
    }
  }
  std::vector<std::string> good;
  CheckResult first_problem;
  for (const auto& ip : candidates) {
    auto b = FindRdmaPortForIpv4(facts, ip);
    if (b.ok() && b->port_up) {
      good.push_back(ip + " on " + b->netdev + " -> " + b->rdma_device + "/" +
                     std::to_string(b->port) + " GID " + std::to_string(b->gid_index) + " (" +
                     b->link_layer + ")");
      continue;
    }
    if (!first_problem.id.empty()) continue;
    if (b.ok()) {
      first_problem = Fail(
          id, "LinkDown",
          ip + " is on " + b->rdma_device + "/" + std::to_string(b->port) + ", which is not up",
          "Bring the RDMA port up (cable, switch, subnet manager).");
    } else if (b.status().code() == StatusCode::kNotFound) {
      first_problem = Fail(
          id, "RdmaIpNotFound", b.status().message(),
          "Configure the address on the RDMA interface or fix the pool's rdma interface/CIDR.");
    } else {
      first_problem = Fail(id, "NoUsableGid", b.status().message(),
                           "Put the address on the IPoIB/RoCE netdev itself (or its VLAN/bond) so "
                           "it maps to a GID.");
    }
  }
  if (!good.empty()) return Pass(id, JoinList(good));
  if (!first_problem.id.empty()) return first_problem;
  if (facts.HasIssues("ips")) {
    return Unknown(id, "IpsUnreadable",
                   "cannot read interface addresses: " + DescribeIssues(facts, "ips"),
                   "Run the agent with hostNetwork, or pass --ips-file.");
  }
  return Fail(
      id, "NoRdmaIp", "no IPv4 address on a netdev backed by an RDMA port",
      "Configure an IPv4 address on the IPoIB (or bond) / RoCE interface; rdma_cm binds by IP.");
}

CheckResult CheckActiveMtu(const NodeFacts& facts) {
  const char* id = "rdma.active-mtu";
  std::vector<std::string> low, unknown;
  std::vector<Said> ok;
  std::string low_remedy;
  bool low_roce = false;
  for (const RdmaDevice* d : UsableDevices(facts)) {
    for (const auto& p : d->ports) {
      if (!PortUsable(p)) continue;
      const std::string name = PortName(*d, p);
      if (p.active_mtu == 0) {
        unknown.push_back(name);
        continue;
      }
      const std::string mtu = std::to_string(p.active_mtu) +
                              (p.active_mtu_source == "netdev" ? " (from netdev MTU)" : "");
      const std::string text = name + " " + mtu;
      if (p.active_mtu >= 4096) {
        ok.push_back({text, name, mtu});
      } else {
        low.push_back(text);
        low_roce = low_roce || p.IsEthernet();
        low_remedy = p.IsEthernet() ? "Raise the RoCE netdev MTU to at least 4200 (9000 is usual); "
                                      "RoCE loses 96 bytes to headers."
                                    : "Check the subnet manager's partition MTU and the switch "
                                      "port MTU (4096 expected).";
      }
    }
  }
  if (!low.empty()) {
    return Warn(id, low_roce ? "RoceMtuLow" : "IbMtuLow", "active MTU below 4096: " + JoinList(low),
                low_remedy);
  }
  if (!unknown.empty() && ok.empty()) {
    return Unknown(id, "ActiveMtuUnknown",
                   "active MTU of " + JoinList(unknown) + " needs libibverbs (not probed)",
                   "Run the agent where libibverbs and /dev/infiniband/uverbsN are available.");
  }
  if (ok.empty()) return Pass(id, "no up port, nothing to measure", "NotApplicable");
  std::string msg = JoinGrouped(ok);
  if (!unknown.empty()) msg += "; unknown: " + JoinList(unknown);
  return Pass(id, msg);
}

CheckResult CheckDc(const NodeFacts& facts) {
  const char* id = "rdma.dc";
  std::vector<std::string> yes, no, unknown;
  for (const RdmaDevice* d : UsableDevices(facts)) {
    switch (d->dc_supported) {
      case Tristate::kYes: yes.push_back(d->name); break;
      case Tristate::kNo: no.push_back(d->name); break;
      case Tristate::kUnknown: unknown.push_back(d->name); break;
    }
  }
  if (!yes.empty()) {
    const bool all = no.empty() && unknown.empty() && yes.size() >= 3;
    return Pass(id, "DC transport supported on " +
                        (all ? "all " + std::to_string(yes.size()) + " devices" : JoinList(yes)));
  }
  if (!no.empty() && unknown.empty()) {
    return Fail(id, "DcUnsupported", "creating a DC target fails (EOPNOTSUPP) on " + JoinList(no),
                "cuObject uses only the DC transport: use a ConnectX-5+ PF (or a VF with DC "
                "enabled in firmware).");
  }
  return Unknown(
      id, "DcUnknown",
      "DC support of " + JoinList(unknown) + " not determined (needs libmlx5 and uverbs)",
      "Run the agent with libibverbs/libmlx5 and /dev/infiniband mounted to probe DC.");
}

CheckResult CheckNetns(const NodeFacts& facts) {
  const char* id = "rdma.netns";
  if (facts.drivers.rdma_netns_mode.empty()) {
    return Unknown(id, "NetnsModeUnknown", "sys/module/ib_core/parameters/netns_mode not readable",
                   "Informational: shared mode suits the shared device plugin, exclusive suits "
                   "SR-IOV + rdma-cni.");
  }
  return Pass(id, "RDMA netns mode " + facts.drivers.rdma_netns_mode);
}

CheckResult CheckIbCoreFlavor(const NodeFacts& facts) {
  const char* id = "rdma.ib-core-flavor";
  const auto& d = facts.drivers;
  if (d.ib_core_flavor.empty()) {
    return Unknown(id, "IbCoreNotLoaded", "ib_core/mlx5_core not loaded",
                   "Load mlx5_core and mlx5_ib.");
  }
  std::string msg = d.ib_core_flavor;
  if (!d.ofed_version.empty()) msg += " " + d.ofed_version;
  if (!d.ib_core_flavor_signals.empty())
    msg += " (" + JoinList(d.ib_core_flavor_signals, "; ") + ")";
  msg += d.peer_memory_api ? ", PeerDirect API present" : ", no PeerDirect API";
  return Pass(id, msg);
}

CheckResult CheckReadErrors(const NodeFacts& facts) {
  const char* id = "probe.read-errors";
  if (facts.issues.empty()) return Pass(id, "every file read and parsed");
  std::vector<std::string> parts;
  for (size_t i = 0; i < facts.issues.size() && i < 5; ++i) {
    const auto& is = facts.issues[i];
    parts.push_back(is.message.rfind(is.path, 0) == 0 ? is.message : is.path + ": " + is.message);
  }
  std::string msg = std::to_string(facts.issues.size()) +
                    " unreadable or malformed input(s): " + JoinList(parts, "; ");
  return Unknown(id, "UnreadableInput", msg,
                 "Check the named files on the host; the checks that depend on them say Unknown.");
}

}  // namespace rdmastack::node::checks
