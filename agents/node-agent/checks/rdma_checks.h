#pragma once
// Checks over RDMA devices, ports, GIDs, modules and device files (both roles).

#include "agents/node-agent/checks/check_builder.h"

namespace rdmastack::agent::checks {

CheckResult CheckKernel(const NodeFacts& facts);
CheckResult CheckRdmaDevices(const NodeFacts& facts);
CheckResult CheckNicGeneration(const NodeFacts& facts);
CheckResult CheckPortState(const NodeFacts& facts);
CheckResult CheckRdmaModules(const NodeFacts& facts);
CheckResult CheckDeviceFiles(const NodeFacts& facts);
CheckResult CheckUmad(const NodeFacts& facts);
CheckResult CheckClientGid(const NodeFacts& facts, int gid_index);
CheckResult CheckGatewayIp(const NodeFacts& facts, const std::string& rdma_ip);
CheckResult CheckActiveMtu(const NodeFacts& facts);
CheckResult CheckDc(const NodeFacts& facts);
CheckResult CheckNetns(const NodeFacts& facts);
CheckResult CheckIbCoreFlavor(const NodeFacts& facts);
CheckResult CheckReadErrors(const NodeFacts& facts);

}  // namespace rdmastack::agent::checks
