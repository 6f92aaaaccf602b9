#pragma once
// Shared helpers for writing checks: result constructors, issue lookup, device selection.

#include <string>
#include <string_view>
#include <vector>

#include "node/checks/check.h"
#include "node/probe/facts.h"

namespace rdmastack::node::checks {

// Which verdicts a check gates.
enum Gate : unsigned { kGateway = 1, kHostMemory = 2, kGpuDirect = 4, kInfo = 0 };

struct Entry {
  CheckResult result;
  unsigned gates = kInfo;
  bool unknown_blocks = true;  // an Unknown result makes the gated verdicts not capable
};

CheckResult Pass(std::string id, std::string message, std::string reason = "Ok");
CheckResult Warn(std::string id, std::string reason, std::string message, std::string remedy);
CheckResult Fail(std::string id, std::string reason, std::string message, std::string remedy);
CheckResult Unknown(std::string id, std::string reason, std::string message, std::string remedy);

// "path (message); path (message)" for the issues of `area` whose path contains `needle`
// (at most three, then "and N more").
std::string DescribeIssues(const NodeFacts& facts, std::string_view area,
                           std::string_view needle = "");

// Hardware RDMA devices (soft RoCE excluded).
std::vector<const RdmaDevice*> HardwareDevices(const NodeFacts& facts);
// Hardware devices of a supported generation (ConnectX-5+); all hardware devices when none is.
std::vector<const RdmaDevice*> UsableDevices(const NodeFacts& facts);
bool PortUsable(const RdmaPort& p);  // up, and on IB configured by a subnet manager
std::string PortName(const RdmaDevice& d, const RdmaPort& p);  // mlx5_0/1
std::string JoinList(const std::vector<std::string>& items, std::string_view sep = ", ");

// What a check says of many devices that mostly say the same thing (an 8-GPU, 12-NIC server):
// once three or more items share a value, items grouped by value, groups in first-seen order,
// "value: a, b, c; other: d". Below that, each item's own words, as a plain list.
struct Said {
  std::string alone;  // mlx5_0/1 InfiniBand 400 Gb/sec (4X NDR): the item said by itself
  std::string item;   // mlx5_0/1
  std::string value;  // InfiniBand 400 Gb/sec (4X NDR)
};
std::string JoinGrouped(const std::vector<Said>& said, std::string_view sep = ", ");

}  // namespace rdmastack::node::checks
