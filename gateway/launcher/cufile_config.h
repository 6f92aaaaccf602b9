#pragma once
// The cufile.json the gateway is started with: the node's RDMA IP as the only device address,
// plus the logging directory and level. Whether libcuobjserver reads it is unverified (research
// §2.4), but the validated field setup had it, so the launcher keeps it.

#include <string>

#include "base/status.h"

namespace rdmastack::gateway {

struct CufileConfig {
  std::string rdma_ip;
  std::string log_dir;
  std::string log_level;  // ERROR | WARN | INFO | DEBUG | TRACE
};

Status ValidateCufileLogLevel(const std::string& level);

// {"logging":{"dir":...,"level":...},"properties":{"rdma_dev_addr_list":["<ip>"]}}
std::string RenderCufileJson(const CufileConfig& config);

}  // namespace rdmastack::gateway
