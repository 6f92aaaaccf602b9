#pragma once
// What this node does for a ClientProfile, decided from the node agent's own facts and checks: the
// transport (and for GPU-direct the memory registration path), the RDMA device and GID index
// libcuobjclient is handed, or why the node cannot serve the profile. Pure: no I/O.

#include <string>
#include <vector>

#include "node/checks/check.h"
#include "node/probe/facts.h"

namespace rdmastack::client {

struct NodePlan {
  node::Evaluation evaluation;
  bool capable = false;      // the agent's Evaluate() says ready
  std::string transport;     // GPUDirect | HostMemory | "" when not capable
  std::string registration;  // GPUDirect: DMABuf | PeerMem (the verdict's via); "" otherwise
  // cufile's rdma_dev_addr_list, all with a usable GID at gid_index. GPU-direct: the NIC nearest
  // each GPU within maxGpuNicDistance, in GPU order (an HGX node lists its eight compute NICs,
  // not its storage ports). HostMemory: every such device.
  std::vector<std::string> rdma_devices;
  std::string rdma_device;  // rdma_devices.front() (VGWRDMA_RDMA_DEV)
  int gid_index = -1;       // VGWRDMA_GID_INDEX: IB 0, RoCE the v2 GID of an IPv4, or as asked
  std::string reason;       // not capable: the deciding verdict's reason (PeerMemNotLoaded, ...)
  std::string message;      // not capable: "<capability>: <reason>: <check>: <what was found>"
};

// requirements.role must be client.
NodePlan PlanNode(const node::NodeFacts& facts, const node::Requirements& requirements);

// Whether GPU-direct on this node would register memory through nvidia_peermem: asked for
// (PeerMem), or Auto where dma-buf does not work. HostMemory never does.
bool WouldUsePeerMem(const node::NodeFacts& facts, const node::Evaluation& evaluation);

struct PeerMemLoad {
  bool load = false;
  std::string why;  // why (not); one line for the log
};
// Whether to run the modprobe command now: allowed (--load-peermem), GPU-direct would use
// nvidia_peermem, it is not loaded, and modules.dep lists it for the running kernel.
PeerMemLoad DecidePeerMemLoad(const node::NodeFacts& facts, const node::Evaluation& evaluation,
                              bool allowed);

}  // namespace rdmastack::client
