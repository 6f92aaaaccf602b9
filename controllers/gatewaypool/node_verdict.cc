#include "controllers/gatewaypool/node_verdict.h"

#include <algorithm>
#include <vector>

#include "controllers/common/conditions.h"
#include "controllers/common/node_walk.h"
#include "crds/types/rdmanode_api.h"
#include "crds/types/reasons.h"
#include "lib/rails/gpu_rails.h"

namespace rdmastack::gatewaypool {

namespace reasons = crd::reasons;
using rails::ParseIpv4Net;

namespace {

std::string AddressOnly(const std::string& with_prefix) {
  return with_prefix.substr(0, with_prefix.find('/'));
}

std::string Inventory(const std::vector<crd::NetDevFacts>& netdevs) {
  std::string out;
  for (const auto& n : netdevs) {
    for (const auto& ip : n.ipv4) {
      out += (out.empty() ? "" : ", ") + n.name + " " + ip + (n.rdma_device ? "" : " (not RDMA)");
    }
  }
  return out.empty() ? "no IPv4 addresses" : out;
}

NodeVerdict Fail(std::string reason, std::string message) {
  NodeVerdict v;
  v.reason = std::move(reason);
  v.message = std::move(message);
  return v;
}

// The address `ip` ("10.10.0.11/24" as the agent reports it) picked on `netdev`, and its network.
NodeVerdict Picked(const std::string& ip, const std::string& netdev) {
  NodeVerdict v;
  v.verified = true;
  v.rdma_address = AddressOnly(ip);
  v.netdev = netdev;
  if (const auto net = ParseIpv4Net(ip); net && ip.find('/') != std::string::npos) {
    v.rdma_network = net->Network();
  }
  return v;
}

NodeVerdict PickByInterface(const std::string& name, const crd::RdmaNodeStatus& s) {
  for (const auto& n : s.netdevs) {
    if (n.name != name) continue;
    if (!n.rdma_device) {
      return Fail(reasons::kInterfaceNotRdma,
                  "rdma.interface " + name +
                      " is not on an RDMA device on this node; pick the "
                      "IPoIB/RoCE netdev (it has: " +
                      Inventory(s.netdevs) + ")");
    }
    if (n.ipv4.size() != 1) {
      return Fail(n.ipv4.empty() ? reasons::kInterfaceNotFound : reasons::kAmbiguousRdmaAddress,
                  "rdma.interface " + name + " has " + std::to_string(n.ipv4.size()) +
                      " IPv4 addresses; the gateway binds exactly one: use rdma.cidr to pick it");
    }
    return Picked(n.ipv4.front(), n.name);
  }
  return Fail(reasons::kInterfaceNotFound,
              "the node has no interface " + name + " (it has: " + Inventory(s.netdevs) +
                  "); set rdma.interface or rdma.cidr to one it has, or "
                  "take the node out of the pool's nodeSelector");
}

NodeVerdict PickByCidr(const std::string& text, const crd::RdmaNodeStatus& s) {
  const auto cidr = text.find('/') == std::string::npos ? std::nullopt : ParseIpv4Net(text);
  if (!cidr) return Fail(reasons::kNoAddressInCidr, "rdma.cidr " + text + " is not an IPv4 CIDR");
  std::vector<std::pair<std::string, std::string>> hits;  // address/prefix, netdev
  for (const auto& n : s.netdevs) {
    if (!n.rdma_device) continue;
    for (const auto& ip : n.ipv4) {
      auto parsed = ParseIpv4Net(AddressOnly(ip));
      if (parsed && cidr->Contains(parsed->base)) hits.emplace_back(ip, n.name);
    }
  }
  if (hits.size() == 1) return Picked(hits.front().first, hits.front().second);
  if (hits.empty()) {
    return Fail(reasons::kNoAddressInCidr,
                "no RDMA netdev of the node has an address in rdma.cidr " + text +
                    " (it has: " + Inventory(s.netdevs) + ")");
  }
  return Fail(reasons::kAmbiguousRdmaAddress, "rdma.cidr " + text + " matches " +
                                                  std::to_string(hits.size()) +
                                                  " addresses on this node; narrow it to one");
}

NodeVerdict PickBySelector(const std::string& selector, bool is_cidr,
                           const crd::RdmaNodeStatus& s) {
  return is_cidr ? PickByCidr(selector, s) : PickByInterface(selector, s);
}

// The RDMA port under `netdev` as the status reports it: "" when up or not reported, else what
// is wrong with it.
std::string PortDown(const std::string& netdev, const crd::RdmaNodeStatus& s) {
  for (const auto& n : s.netdevs) {
    if (n.name != netdev || !n.rdma_device) continue;
    for (const auto& d : s.devices) {
      if (d.name != *n.rdma_device) continue;
      for (const auto& p : d.ports) {
        if (p.number != n.rdma_port.value_or(1) || !p.state) continue;
        if (*p.state == "ACTIVE" && p.physical_state.value_or("LinkUp") == "LinkUp") return "";
        return d.name + "/" + std::to_string(p.number) + " is " + *p.state +
               (p.physical_state ? " (" + *p.physical_state + ")" : "");
      }
    }
  }
  return "";
}

NodeVerdict VerifyRails(const std::vector<crd::RdmaRail>& rails, const crd::RdmaNodeStatus& s) {
  NodeVerdict out;
  for (const crd::RdmaRail& rail : rails) {
    NodeVerdict v = PickBySelector(rail.interface.value_or(rail.cidr.value_or("")),
                                   !rail.interface.has_value(), s);
    if (!v.verified) {
      v.message = "rail " + rail.name + ": " + v.message;
      return v;
    }
    RailVerdict r{rail.name, v.rdma_address, v.rdma_network, true, PortDown(v.netdev, s)};
    r.up = r.down.empty();
    if (out.rails.empty()) {
      out.rdma_address = v.rdma_address;
      out.rdma_network = v.rdma_network;
      out.netdev = v.netdev;
    }
    out.rails.push_back(std::move(r));
  }
  out.verified = true;
  return out;
}

}  // namespace

bool NodeVerdict::RailsDown() const {
  return std::any_of(rails.begin(), rails.end(), [](const RailVerdict& r) { return !r.up; });
}

bool RailServes(const NodeVerdict& v, std::string_view rail) {
  if (v.rails.empty()) return true;
  for (const RailVerdict& r : v.rails) {
    if (r.name == rail) return r.up;
  }
  return false;
}

NodeVerdict VerifyNode(const crd::GatewayPoolSpec& spec, const NodeInput& node) {
  if (!node.rdma) {
    return Fail(reasons::kAgentNotReporting,
                "no report from the node's rdmastack-agent yet; check that its agent pod runs "
                "(kubectl -n rdmastack-system get pods -o wide)");
  }
  const crd::RdmaNodeStatus& s = *node.rdma;
  if (const crd::Condition* r = controllers::FindCondition(s.conditions, rdmanode::kReporting);
      r == nullptr || r->status != crd::ConditionStatus::kTrue) {
    return Fail(reasons::kAgentNotReporting,
                r != nullptr ? r->message : "the node's agent has not reported yet");
  }
  const crd::Condition* g = controllers::FindCondition(s.conditions, rdmanode::kGatewayCapable);
  if (g == nullptr || g->status == crd::ConditionStatus::kUnknown) {
    return Fail(reasons::kNotEvaluated,
                "the agent has not evaluated the gateway checks yet (it does once it receives "
                "the pool's requirements)");
  }
  if (g->status != crd::ConditionStatus::kTrue) {
    return Fail(g->reason.empty() ? reasons::kGatewayIncapable : g->reason,
                g->message + "; kubectl describe rdmanode " + node.name + " lists every check");
  }
  if (!spec.rdma.rails.empty()) return VerifyRails(spec.rdma.rails, s);
  if (spec.rdma.interface) return PickByInterface(*spec.rdma.interface, s);
  if (spec.rdma.cidr) return PickByCidr(*spec.rdma.cidr, s);
  return Fail(reasons::kInterfaceNotFound, "the pool names neither rdma.interface nor rdma.cidr");
}

}  // namespace rdmastack::gatewaypool
