#include "lib/rails/gpu_rails.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <utility>

namespace rdmastack::rails {
namespace {

std::optional<uint32_t> ParseIpv4(std::string_view text) {
  in_addr a{};
  if (inet_pton(AF_INET, std::string(text).c_str(), &a) != 1) return std::nullopt;
  return ntohl(a.s_addr);
}

uint32_t Mask(int prefix) {
  return prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
}

bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

}  // namespace

std::optional<Ipv4Net> ParseIpv4Net(std::string_view text) {
  Ipv4Net net;
  const size_t slash = text.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view bits = text.substr(slash + 1);
    const auto [end, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), net.prefix);
    if (bits.empty() || ec != std::errc() || end != bits.data() + bits.size() || net.prefix < 0 ||
        net.prefix > 32) {
      return std::nullopt;
    }
    text = text.substr(0, slash);
  }
  auto ip = ParseIpv4(text);
  if (!ip) return std::nullopt;
  net.base = *ip;
  return net;
}

bool Ipv4Net::Contains(uint32_t ip) const {
  return (ip & Mask(prefix)) == (base & Mask(prefix));
}

std::string Ipv4Net::Network() const {
  const uint32_t n = base & Mask(prefix);
  return std::to_string(n >> 24) + "." + std::to_string((n >> 16) & 0xff) + "." +
         std::to_string((n >> 8) & 0xff) + "." + std::to_string(n & 0xff) + "/" +
         std::to_string(prefix);
}

bool IsRailName(std::string_view name) {
  if (name.empty() || name.size() > 15 || !IsLowerAlnum(name.front()) ||
      !IsLowerAlnum(name.back())) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

int PathRank(std::string_view path_type) {
  static constexpr std::string_view kNearestFirst[] = {"PIX", "PXB", "PHB", "SYS"};
  for (int i = 0; i < 4; ++i) {
    if (path_type == kNearestFirst[i]) return i;
  }
  return -1;
}

const RailNetwork* NetworkOf(const std::vector<std::string>& ipv4,
                             const std::vector<RailNetwork>& networks) {
  for (const RailNetwork& n : networks) {
    const auto net = ParseIpv4Net(n.cidr);
    if (!net) continue;
    for (const std::string& address : ipv4) {
      const auto a = ParseIpv4Net(address);
      if (a && net->Contains(a->base)) return &n;
    }
  }
  return nullptr;
}

RailPlan PlanGpuRails(const std::vector<RailGpu>& gpus, const std::vector<RailNic>& nics,
                      const std::vector<RailNetwork>& networks, std::string_view max_path_type) {
  RailPlan plan;
  const int max = PathRank(max_path_type);
  std::vector<std::pair<const RailNic*, const RailNetwork*>> candidates;
  for (const RailNic& nic : nics) {
    if (const RailNetwork* net = NetworkOf(nic.ipv4, networks)) candidates.emplace_back(&nic, net);
  }
  plan.on_rails = !candidates.empty();
  if (!plan.on_rails) {
    for (const RailNic& nic : nics) candidates.emplace_back(&nic, nullptr);
  }
  for (const auto& [nic, net] : candidates) {
    plan.reachable.push_back(nic->name);
    if (net != nullptr) plan.rail_of.emplace(nic->name, net->rail);
  }

  for (const RailGpu& gpu : gpus) {
    GpuRailChoice choice;
    choice.gpu = gpu.gpu;
    const RailGpu::Nic* best = nullptr;
    const RailNetwork* best_net = nullptr;
    for (const auto& [nic, net] : candidates) {
      for (const RailGpu::Nic& n : gpu.nics) {
        if (n.name != nic->name || PathRank(n.path_type) < 0) continue;
        if (best == nullptr || PathRank(n.path_type) < PathRank(best->path_type)) {
          best = &n;
          best_net = net;
        }
      }
    }
    if (best != nullptr) {
      choice.nic = best->name;
      choice.path_type = best->path_type;
      choice.within = PathRank(best->path_type) <= max;
      if (best_net != nullptr) {
        choice.rail = best_net->rail;
        choice.network = best_net->cidr;
      }
      if (choice.within &&
          std::find(plan.devices.begin(), plan.devices.end(), choice.nic) == plan.devices.end()) {
        plan.devices.push_back(choice.nic);
      }
    }
    plan.gpus.push_back(std::move(choice));
  }
  return plan;
}

std::string DescribeChoice(const GpuRailChoice& choice) {
  if (choice.nic.empty()) return choice.gpu + " -> no NIC with a known PCIe path";
  std::string out = choice.gpu + " -> " + choice.nic + " " + choice.path_type;
  if (choice.network.empty()) return out;
  return out + " (" + (choice.rail.empty() ? "" : "rail " + choice.rail + ", ") + choice.network +
         ")";
}

std::optional<std::string> TooFar(const RailPlan& plan, std::string_view max_path_type) {
  if (!plan.on_rails) return std::nullopt;
  for (const GpuRailChoice& g : plan.gpus) {
    if (g.within) continue;
    return DescribeChoice(g) +
           " is the GPU's nearest NIC on the pool's networks, farther than maxGpuNicDistance " +
           std::string(max_path_type);
  }
  return std::nullopt;
}

}  // namespace rdmastack::rails
