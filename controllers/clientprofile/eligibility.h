#pragma once
// Whether a node can use a ClientProfile, and with which transport (pure). The input is what the
// node's agent reported (its RdmaNode status); the answer is what the operator labels, schedules
// and reports. The client data plane on the node decides the same from the same probes (it runs
// the agent's checks) and refuses to turn Ready where the node cannot do it.

#include <optional>
#include <string>
#include <vector>

#include "crds/types/types.h"

namespace rdmastack::clientprofile {

struct Eligibility {
  bool eligible = false;
  std::string transport;            // GPUDirect | HostMemory when eligible
  std::string memory_registration;  // PeerMem | DMABuf with GPUDirect
  std::optional<int32_t> gid_index;
  // Ineligible: a machine-readable reason (NoRdmaDevice, PeerMemNotLoaded, Bar1TooSmall, ...).
  // Eligible: "Eligible".
  std::string reason;
  // One line: why this transport (eligible), or what is missing and what to do (ineligible).
  std::string message;
  // With GPUDirect through PeerMem on a node where nvidia_peermem is not loaded yet: the client
  // loads it (loadPeerMem).
  bool loads_peer_mem = false;
};

// `node`: the node's RdmaNode status; null when the node has none yet. `networks`: where the
// pool's gateways serve (its status.networks); with a NIC of the node on one, GPU-direct needs
// each GPU's nearest NIC there within maxGpuNicDistance (GpuNicTooFar otherwise).
Eligibility DecideEligibility(const crd::ClientProfileSpec& spec, const crd::RdmaNodeStatus* node,
                              const std::vector<crd::PoolNetwork>& networks = {});

}  // namespace rdmastack::clientprofile
