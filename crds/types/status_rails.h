#pragma once
// The per-GPU NIC choice on a pool's networks (lib/rails/gpu_rails.h) from a node's RdmaNode
// status, for the operator's eligibility and `kubectl rdmastack why`: the same decision the
// client makes on the node from the agent's facts. Pure.

#include <string_view>
#include <vector>

#include "crds/types/types.h"
#include "lib/rails/gpu_rails.h"

namespace rdmastack::crd {

std::vector<rails::RailNetwork> RailNetworksOf(const std::vector<PoolNetwork>& pool);

// Candidates: the devices with an ACTIVE port, in the status's order, with their netdevs' IPv4
// addresses. Each GPU's distances: status.gpus[].nicPaths, or nearestNic alone from an agent
// that reports no nicPaths.
rails::RailPlan PlanStatusRails(const RdmaNodeStatus& node,
                                const std::vector<PoolNetwork>& networks,
                                std::string_view max_path_type);

}  // namespace rdmastack::crd
