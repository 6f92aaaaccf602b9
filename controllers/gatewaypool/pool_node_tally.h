#pragma once
// How a pool's selected nodes stand, counted once for its status (pure): verified, serving,
// failing, starting, under maintenance; the node counts and the failing and maintenance lists
// the status shows; and the upgrade under way, if any.

#include <string>
#include <vector>

#include "controllers/gatewaypool/pool_status.h"
#include "crds/types/types.h"

namespace rdmastack::gatewaypool {

struct PoolNodeTally {
  size_t selected = 0;
  size_t verified = 0;          // can run the gateway (maintenance nodes left out)
  size_t ready = 0;             // serve from some track
  size_t failing_gateways = 0;  // verified, with a failing gateway of the spec's track
  size_t starting = 0;          // verified, with that gateway not Ready yet
  size_t in_maintenance = 0;
  size_t not_verified = 0;       // selected - in_maintenance - verified
  std::string unverified_names;  // "n1 (AgentNotReporting), n2 (PortDown)"
  std::string maintenance_text;  // "; 1 node under maintenance (status.maintenanceNodes)" or ""
  const UpgradePlan* upgrade = nullptr;  // the plan when an upgrade is under way, else null
  crd::GatewayPoolNodeCounts counts;
  std::vector<crd::NodeProblem> failing;          // at most kMaxFailingNodes
  std::vector<crd::NodeProblem> degraded;         // RailDown; at most kMaxFailingNodes
  std::vector<crd::MaintenanceNode> maintenance;  // at most kMaxMaintenanceNodes
};

PoolNodeTally TallyPoolNodes(const PoolStatusInputs& in);

// "1 node", "3 nodes".
std::string Count(size_t n, const char* noun);

}  // namespace rdmastack::gatewaypool
