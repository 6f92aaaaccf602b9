#pragma once
// Checks over RDMA devices, ports, GIDs, modules and device files (both roles).

#include "node/checks/check_builder.h"

namespace rdmastack::node::checks {

CheckResult CheckKernel(const NodeFacts& facts);
CheckResult CheckRdmaDevices(const NodeFacts& facts);
CheckResult CheckNicGeneration(const NodeFacts& facts);
CheckResult CheckPortState(const NodeFacts& facts);
CheckResult CheckRdmaModules(const NodeFacts& facts);
CheckResult CheckDeviceFiles(const NodeFacts& facts);
CheckResult CheckUmad(const NodeFacts& facts);

// A GID a client can send from: on an up port of a usable device, GID 0 on native InfiniBand (or
// the index asked for), on RoCE a RoCE v2 GID for an IPv4 address of the port's netdev (the one
// rdma_cm picks for that address). Shared by the rdma.gid check and the client data plane, which
// hands the first one to libcuobjclient (VGWRDMA_RDMA_DEV, VGWRDMA_GID_INDEX).
struct ClientGid {
  std::string device;  // mlx5_0
  int port = 0;
  int gid_index = -1;
  std::string link_layer;  // InfiniBand | Ethernet
  std::string netdev;      // RoCE: the netdev that owns `ipv4`; "" on InfiniBand
  std::string ipv4;        // RoCE: the address the GID carries; "" on InfiniBand
};
// In device, port and GID order; gid_index -1 = any usable one.
std::vector<ClientGid> FindClientGids(const NodeFacts& facts, int gid_index);
CheckResult CheckClientGid(const NodeFacts& facts, int gid_index);
CheckResult CheckGatewayIp(const NodeFacts& facts, const std::string& rdma_ip);
CheckResult CheckActiveMtu(const NodeFacts& facts);
CheckResult CheckDc(const NodeFacts& facts);
CheckResult CheckNetns(const NodeFacts& facts);
CheckResult CheckIbCoreFlavor(const NodeFacts& facts);
CheckResult CheckReadErrors(const NodeFacts& facts);

}  // namespace rdmastack::node::checks
