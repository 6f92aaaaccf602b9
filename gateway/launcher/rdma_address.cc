#include "gateway/launcher/rdma_address.h"

#include <arpa/inet.h>

#include <charconv>
#include <optional>

#include "node/probe/ip_lookup.h"
#include "node/probe/node_probe.h"

namespace rdmastack::gateway {
namespace {

std::optional<uint32_t> ParseIpv4(const std::string& text) {
  in_addr addr{};
  if (inet_pton(AF_INET, text.c_str(), &addr) != 1) return std::nullopt;
  return ntohl(addr.s_addr);
}

bool InCidr(uint32_t ip, uint32_t network, int prefix) {
  if (prefix == 0) return true;
  uint32_t mask = prefix == 32 ? 0xffffffffu : ~((1u << (32 - prefix)) - 1);
  return (ip & mask) == (network & mask);
}

bool ValidInterfaceName(const std::string& name) {
  if (name.empty() || name.size() > 15) return false;  // IFNAMSIZ - 1
  for (char c : name) {
    if (c == '/' || c == ' ' || c == ':' || static_cast<unsigned char>(c) < 0x21) return false;
  }
  return true;
}

struct Candidate {
  const node::NetDev* netdev;
  std::string ipv4;
};

std::string Describe(const std::vector<Candidate>& cs) {
  std::string out;
  for (const Candidate& c : cs) out += (out.empty() ? "" : ", ") + c.ipv4 + " on " + c.netdev->name;
  return out;
}

}  // namespace

StatusOr<RdmaSelector> ParseRdmaSelector(const std::string& text) {
  RdmaSelector sel;
  sel.text = text;
  size_t slash = text.find('/');
  if (slash == std::string::npos) {
    if (ParseIpv4(text)) {
      return InvalidArgumentError("RDMA address selector '" + text +
                                  "' is a bare IP; give the interface (bond0) or a CIDR (" + text +
                                  "/32) so every node picks its own address");
    }
    if (!ValidInterfaceName(text)) {
      return InvalidArgumentError("RDMA address selector '" + text +
                                  "' is neither an interface name nor an IPv4 CIDR");
    }
    sel.interface = text;
    return sel;
  }
  std::optional<uint32_t> net = ParseIpv4(text.substr(0, slash));
  std::string_view plen = std::string_view(text).substr(slash + 1);
  int prefix = -1;
  auto [ptr, ec] = std::from_chars(plen.data(), plen.data() + plen.size(), prefix);
  if (!net || ec != std::errc() || ptr != plen.data() + plen.size() || prefix < 0 || prefix > 32) {
    return InvalidArgumentError("RDMA address selector '" + text +
                                "' is not a valid IPv4 CIDR like 100.64.0.0/16");
  }
  sel.network = *net;
  sel.prefix = prefix;
  return sel;
}

StatusOr<RdmaAddress> ResolveRdmaAddress(const RdmaSelector& selector, const node::NodeFacts& facts,
                                         bool allow_port_down) {
  std::vector<Candidate> found;
  for (const node::NetDev& n : facts.netdevs) {
    if (!selector.IsCidr() && n.name != selector.interface) continue;
    for (const node::Ipv4Binding& b : n.ipv4) {
      std::optional<uint32_t> ip = ParseIpv4(b.address);
      if (!ip) continue;
      if (selector.IsCidr() && !InCidr(*ip, selector.network, selector.prefix)) continue;
      found.push_back({&n, b.address});
    }
  }
  if (found.empty()) {
    if (!selector.IsCidr() && facts.FindNetDev(selector.interface) == nullptr) {
      return NotFoundError("interface " + selector.interface + " does not exist on this node (" +
                           std::to_string(facts.netdevs.size()) +
                           " interfaces probed); fix rdma.interface in the GatewayPool");
    }
    return NotFoundError((selector.IsCidr()
                              ? "no IPv4 address of this node lies in " + selector.text
                              : "interface " + selector.interface + " has no IPv4 address") +
                         " (addresses from " + (facts.ips_source.empty() ? "?" : facts.ips_source) +
                         "); assign the RDMA IP or fix the selector");
  }
  if (found.size() > 1) {
    return FailedPreconditionError("RDMA address selector " + selector.text + " matches " +
                                   std::to_string(found.size()) + " addresses (" + Describe(found) +
                                   "); use a narrower CIDR so exactly one is chosen");
  }
  const Candidate& c = found.front();
  StatusOr<node::Ipv4PortBinding> binding = node::FindRdmaPortForIpv4(facts, c.ipv4);
  if (!binding.ok()) {
    return FailedPreconditionError(binding.status().message() +
                                   "; choose the interface of an RDMA NIC (IPoIB or RoCE netdev)");
  }
  if (!binding->port_up) {
    std::string state = "unknown state";
    if (const node::RdmaDevice* d = facts.FindDevice(binding->rdma_device)) {
      for (const node::RdmaPort& p : d->ports) {
        if (p.number == binding->port) state = "state " + p.state + ", phys_state " + p.phys_state;
      }
    }
    const std::string down = c.ipv4 + " on " + c.netdev->name + " is on " + binding->rdma_device +
                             " port " + std::to_string(binding->port) + " which is not up (" +
                             state + ")";
    if (!allow_port_down) {
      return UnavailableError(down +
                              "; check the cable/switch and, on InfiniBand, the subnet manager");
    }
    return RdmaAddress{c.netdev->name,      c.ipv4, binding->rdma_device, binding->port,
                       binding->link_layer, down};
  }
  return RdmaAddress{c.netdev->name,      c.ipv4, binding->rdma_device, binding->port,
                     binding->link_layer, ""};
}

StatusOr<RdmaAddress> ProbeRdmaAddress(const RdmaSelector& selector, const std::string& host_root,
                                       const std::string& ips_file, bool allow_port_down) {
  node::ProbeOptions options;
  options.root = host_root;
  options.ips_file = ips_file;
  node::NodeFacts facts = node::ProbeNode(options);
  if (facts.HasIssues("ips")) {
    const node::ProbeIssue* issue = facts.IssuesIn("ips").front();
    return UnavailableError("cannot list the node's IPv4 addresses (" + issue->path +
                            "): " + issue->message);
  }
  return ResolveRdmaAddress(selector, facts, allow_port_down);
}

}  // namespace rdmastack::gateway
