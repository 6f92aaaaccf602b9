#pragma once
// Which RDMA NIC carries each GPU's traffic to a pool, given the networks the pool's gateways
// serve on (its rails). On a real GPU server the NIC nearest a GPU is often on a fabric that
// never reaches storage (an HGX node's compute rails), so "the nearest NIC" is the nearest one
// with an address on one of the pool's networks. Pure: the client data plane feeds it the
// agent's facts, the operator and `kubectl rdmastack why` the RdmaNode status
// (crds/types/status_rails.h), and all three decide the same.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastack::rails {

// An IPv4 network: "10.10.0.11/16" or a bare address (a /32).
struct Ipv4Net {
  uint32_t base = 0;  // host order, as written (host bits kept)
  int prefix = 32;
  bool Contains(uint32_t ip) const;
  std::string Network() const;  // "10.10.0.0/16": the host bits cleared
};
std::optional<Ipv4Net> ParseIpv4Net(std::string_view text);

// A rail's name as the GatewayPool schema allows it: 1-15 lower-case letters, digits or '-',
// starting and ending with a letter or digit. It goes into container, EndpointSlice and label
// names; the CRD validation, the renderer and the client each hold a name to it.
bool IsRailName(std::string_view name);

// NCCL's path types nearest first: PIX 0, PXB 1, PHB 2, SYS 3; -1 for anything else.
int PathRank(std::string_view path_type);

// One IPv4 network a pool's gateways serve on, and the rail that serves there ("" for a pool
// without named rails).
struct RailNetwork {
  std::string rail;
  std::string cidr;  // 10.10.0.0/24
  friend bool operator==(const RailNetwork&, const RailNetwork&) = default;
};

// A NIC the client could send from, with its netdevs' IPv4 addresses in CIDR form.
struct RailNic {
  std::string name;
  std::vector<std::string> ipv4;
};

// A GPU and its PCIe distance to NICs (every one the agent measured; a NIC it has no distance to
// is out of the GPU's reach).
struct RailGpu {
  struct Nic {
    std::string name;
    std::string path_type;  // PIX | PXB | PHB | SYS; anything else is ignored
  };
  std::string gpu;
  std::vector<Nic> nics;
};

struct GpuRailChoice {
  std::string gpu;
  std::string nic;        // "" when no candidate NIC has a distance to the GPU
  std::string path_type;  // PIX | PXB | PHB | SYS; "" with no nic
  std::string rail;       // the rail of `network`
  std::string network;    // the pool network nic has an address in; "" off rails
  bool within = false;    // path no farther than the profile's maximum
};

struct RailPlan {
  // True when the pool names its networks and some candidate NIC has an address in one: only
  // such NICs are chosen. False when the networks are unknown, or no NIC sits in one (the pool is
  // reached through routing): every candidate is.
  bool on_rails = false;
  std::vector<GpuRailChoice> gpus;  // in the input's order
  // The chosen NICs of the GPUs within the maximum, in GPU order, each once.
  std::vector<std::string> devices;
  // The candidates on the pool's networks (on_rails), or every candidate; in the input's order.
  std::vector<std::string> reachable;
  // On rails: the rail each of `reachable` is on ("" for a pool without named rails).
  std::map<std::string, std::string> rail_of;
};

// The network of `networks` one of `ipv4` (CIDR or bare addresses) lies in; nullptr when none.
// Unparsable entries on either side match nothing.
const RailNetwork* NetworkOf(const std::vector<std::string>& ipv4,
                             const std::vector<RailNetwork>& networks);

// `nics`: the candidates in preference order (a tie in distance goes to the earlier one).
// `max_path_type`: the profile's maxGpuNicDistance (PIX..SYS).
RailPlan PlanGpuRails(const std::vector<RailGpu>& gpus, const std::vector<RailNic>& nics,
                      const std::vector<RailNetwork>& networks, std::string_view max_path_type);

// "0000:1b:00.0 -> mlx5_1 PHB (rail a, 10.10.0.0/16)": one GPU's choice for messages.
std::string DescribeChoice(const GpuRailChoice& choice);

// On rails, the first GPU whose NIC there is farther than `max_path_type`, described for the
// GpuNicTooFar messages of the client and the operator; nullopt when every GPU's is within it,
// or the plan is not on rails.
std::optional<std::string> TooFar(const RailPlan& plan, std::string_view max_path_type);

}  // namespace rdmastack::rails
