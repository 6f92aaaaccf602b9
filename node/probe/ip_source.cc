#include "node/probe/ip_source.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <memory>

#include "node/probe/host_root.h"
#include "node/probe/parsers.h"

namespace rdmastack::node {

StatusOr<std::vector<InterfaceAddress>> ParseIpsFile(std::string_view text) {
  std::vector<InterfaceAddress> out;
  Status st = ForEachContentLine(text, [&](std::string_view line) -> Status {
    size_t sp = line.find_first_of(" \t");
    if (sp == std::string_view::npos) {
      return InvalidArgumentError("want '<ifname> <ipv4>/<prefix>'");
    }
    InterfaceAddress a;
    a.ifname = std::string(line.substr(0, sp));
    std::string_view cidr = Trim(line.substr(sp));
    size_t slash = cidr.find('/');
    std::string_view ip = cidr.substr(0, slash);
    if (auto parsed = ParseIpv4(ip); !parsed.ok()) return parsed.status();
    a.address = std::string(ip);
    if (slash != std::string_view::npos) {
      auto prefix = ParseDecimal(cidr.substr(slash + 1));
      if (!prefix.ok() || *prefix < 0 || *prefix > 32) {
        return InvalidArgumentError("prefix must be 0..32");
      }
      a.prefix = static_cast<int>(*prefix);
    }
    out.push_back(std::move(a));
    return OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

StatusOr<std::vector<InterfaceAddress>> ReadIpsFile(const std::string& path) {
  RDMASTACK_ASSIGN_OR_RETURN(std::string text, ReadLocalFile(path, 1 << 20));
  auto parsed = ParseIpsFile(text);
  if (!parsed.ok()) return parsed.status().WithContext(path);
  return parsed;
}

StatusOr<std::vector<InterfaceAddress>> LiveInterfaceAddresses() {
  ifaddrs* raw = nullptr;
  if (::getifaddrs(&raw) != 0) {
    return UnavailableError(std::string("getifaddrs: ") + std::strerror(errno));
  }
  std::unique_ptr<ifaddrs, void (*)(ifaddrs*)> list(raw, &::freeifaddrs);
  std::vector<InterfaceAddress> out;
  for (const ifaddrs* it = list.get(); it != nullptr; it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) continue;
    InterfaceAddress a;
    a.ifname = it->ifa_name;
    char buf[INET_ADDRSTRLEN] = {};
    const auto* sin = reinterpret_cast<const sockaddr_in*>(it->ifa_addr);
    ::inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf);
    a.address = buf;
    if (it->ifa_netmask != nullptr) {
      const auto* mask = reinterpret_cast<const sockaddr_in*>(it->ifa_netmask);
      a.prefix = std::popcount(ntohl(mask->sin_addr.s_addr));
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace rdmastack::node
