#pragma once
// What the pools and profiles selecting a node ask of it, as the agent's Requirements (pure).

#include <map>
#include <string>
#include <vector>

#include "agents/proto/agenthub.pb.h"
#include "crds/types/types.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::rdmanode {

// gateway = some GatewayPool selects the node; one ClientRequirement per ClientProfile selecting
// it, sorted by "namespace/name". Objects being deleted select nothing.
agent::v1::Requirements ComputeRequirements(const std::map<std::string, std::string>& node_labels,
                                            const std::vector<crd::GatewayPool>& pools,
                                            const std::vector<crd::ClientProfile>& profiles);

// A ClientProfile's spec as the agent's ClientRequirement.
agent::v1::ClientRequirement ClientRequirementOf(const crd::ClientProfile& profile);

}  // namespace rdmastack::rdmanode
