#pragma once
// What this node does for a ClientProfile, decided from the node agent's own facts and checks: the
// transport (and for GPU-direct the memory registration path), the RDMA device and GID index
// libcuobjclient is handed, or why the node cannot serve the profile. Pure: no I/O.

#include <set>
#include <string>
#include <vector>

#include "lib/rails/gpu_rails.h"
#include "node/checks/check.h"
#include "node/probe/facts.h"

namespace rdmastack::client {

struct NodePlan {
  node::Evaluation evaluation;
  bool capable = false;      // the agent's Evaluate() says ready
  std::string transport;     // GPUDirect | HostMemory | "" when not capable
  std::string registration;  // GPUDirect: DMABuf | PeerMem (the verdict's via); "" otherwise
  // cufile's rdma_dev_addr_list, all with a usable GID at gid_index. GPU-direct: each GPU's
  // chosen NIC within maxGpuNicDistance, in GPU order (an HGX node lists its eight compute NICs,
  // not its storage ports, unless only the storage ports reach the pool). HostMemory: every such
  // device that reaches the pool.
  std::vector<std::string> rdma_devices;
  std::string rdma_device;  // rdma_devices.front() (VGWRDMA_RDMA_DEV)
  int gid_index = -1;       // VGWRDMA_GID_INDEX: IB 0, RoCE the v2 GID of an IPv4, or as asked
  // Per GPU, the NIC chosen for it (on the pool's networks when on_rails), its path and rail.
  std::vector<rails::GpuRailChoice> gpu_rails;
  bool on_rails = false;
  // On rails: the named rails of rdma_devices, whose gateways the client uses.
  std::set<std::string> rails;
  std::string note;     // why the transport is not the one the agent's checks select
  std::string reason;   // not capable: the deciding verdict's reason (PeerMemNotLoaded, ...)
  std::string message;  // not capable: "<capability>: <reason>: <check>: <what was found>"
};

// requirements.role must be client. `networks`: where the pool's gateways serve (its status);
// with a NIC on one of them, only such NICs are listed, each GPU getting its nearest, and
// GPU-direct needs every GPU's within maxGpuNicDistance (Auto falls back to HostMemory, GPUDirect
// is refused with GpuNicTooFar). Without networks, or no NIC on one (the pool is reached through
// routing), every NIC with a usable GID is a candidate.
NodePlan PlanNode(const node::NodeFacts& facts, const node::Requirements& requirements,
                  const std::vector<rails::RailNetwork>& networks = {});

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
