#pragma once
// Network interfaces from /sys/class/net, their IPv4 addresses, and which RDMA device/port each
// one rides on (node-detection-spec §1.6): IPoIB by the GID in the hardware address (bonds
// included), RoCE by the GID table's netdev column (VLAN uppers and RoCE LAG included).

#include <vector>

#include "node/probe/facts.h"
#include "node/probe/host_root.h"
#include "node/probe/ip_source.h"

namespace rdmastack::node {

std::vector<NetDev> ProbeNetDevs(const HostRoot& root, const std::vector<InterfaceAddress>& addrs,
                                 const std::vector<RdmaDevice>& rdma,
                                 std::vector<ProbeIssue>* issues);

// Pure: fills rdma_device/rdma_port and per-address GID indexes of `netdevs` from the RDMA GID
// tables. Exposed for unit tests.
void MapNetDevsToRdma(const std::vector<RdmaDevice>& rdma, std::vector<NetDev>* netdevs);

// RoCE active MTU as the kernel derives it from the netdev MTU (iboe_get_mtu): subtract 96 bytes
// of headers and round down to an IB MTU. 0 when the netdev MTU is below 352.
int RoceMtuFromNetdevMtu(int netdev_mtu);

}  // namespace rdmastack::node
