// Values the schema leaves unset and the operator derives (types.h, "derived values").
#include <charconv>
#include <cstdio>
#include <string>

#include "crds/types/types.h"

namespace rdmastack::crd {
namespace {

constexpr int32_t kS3PortBase = 7070;     // 7071 for 1.x, 7072 for 2.x (the seed's port map)
constexpr int32_t kRdmaPortBase = 19099;  // 19100 for 1.x, 19101 for 2.x

StatusOr<int32_t> PortOrDefault(const std::optional<int32_t>& port, int32_t base,
                                const GatewayPoolSpec& spec) {
  if (port) return *port;
  RDMASTACK_ASSIGN_OR_RETURN(int major, LibraryMajor(spec.server_library.version));
  return base + major;
}

// "0000:0000:0000:0000:0000:ffff:c0a8:3215" -> "192.168.50.21"; "" when not IPv4-mapped.
std::string Ipv4OfMappedGid(std::string_view gid) {
  constexpr std::string_view kPrefix = "0000:0000:0000:0000:0000:ffff:";
  if (gid.size() != kPrefix.size() + 9 || gid.substr(0, kPrefix.size()) != kPrefix) return "";
  unsigned a = 0, b = 0;
  const std::string tail(gid.substr(kPrefix.size()));
  if (std::sscanf(tail.c_str(), "%4x:%4x", &a, &b) != 2) return "";
  return std::to_string(a >> 8) + "." + std::to_string(a & 0xff) + "." + std::to_string(b >> 8) +
         "." + std::to_string(b & 0xff);
}

bool NetdevHasIpv4(const RdmaNodeStatus& node, std::string_view netdev, std::string_view ip) {
  for (const auto& n : node.netdevs) {
    if (n.name != netdev) continue;
    for (const auto& cidr : n.ipv4) {
      if (std::string_view(cidr).substr(0, cidr.find('/')) == ip) return true;
    }
  }
  return false;
}

}  // namespace

StatusOr<int> LibraryMajor(std::string_view version) {
  // Exactly four dot-separated decimal parts; the first is the major.
  int parts = 0;
  int major = -1;
  std::string_view rest = version;
  while (true) {
    size_t dot = rest.find('.');
    std::string_view part = rest.substr(0, dot);
    int value = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || value < 0) {
      break;
    }
    if (parts == 0) major = value;
    ++parts;
    if (dot == std::string_view::npos) {
      if (parts == 4) return major;
      break;
    }
    rest.remove_prefix(dot + 1);
  }
  return InvalidArgumentError("library version \"" + std::string(version) +
                              "\" is not a four-part version such as 1.2.0.68");
}

StatusOr<int32_t> EffectiveS3Port(const GatewayPoolSpec& spec) {
  return PortOrDefault(spec.s3.port, kS3PortBase, spec);
}

StatusOr<int32_t> EffectiveRdmaPort(const GatewayPoolSpec& spec) {
  return PortOrDefault(spec.rdma.port, kRdmaPortBase, spec);
}

std::optional<int32_t> AutoClientGid(const RdmaNodeStatus& node, const RdmaPortFacts& port) {
  if (port.link_layer.value_or("") == "InfiniBand") return 0;
  for (const auto& g : port.gids) {
    const std::string ip = Ipv4OfMappedGid(g.gid.value_or(""));
    if (g.type.value_or("") == "RoCE v2" && !ip.empty() &&
        NetdevHasIpv4(node, g.netdev.value_or(""), ip))
      return g.index;
  }
  return std::nullopt;
}

}  // namespace rdmastack::crd
