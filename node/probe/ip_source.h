#pragma once
// IPv4 addresses per interface: from the live network namespace (getifaddrs) or, for fixture
// trees, from a text file with one "<ifname> <a.b.c.d>/<prefix>" per line ('#' comments).

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack::node {

struct InterfaceAddress {
  std::string ifname;
  std::string address;  // 10.10.0.11
  int prefix = 32;
};

StatusOr<std::vector<InterfaceAddress>> ParseIpsFile(std::string_view text);
StatusOr<std::vector<InterfaceAddress>> ReadIpsFile(const std::string& path);
StatusOr<std::vector<InterfaceAddress>> LiveInterfaceAddresses();

}  // namespace rdmastack::node
