#pragma once
// The conditions of a GatewayPool's status, one function each (pure). Reasons and what to do about
// each: docs/troubleshooting.md "GatewayPool".

#include <optional>
#include <string>

#include "controllers/common/conditions.h"
#include "controllers/gatewaypool/pool_node_tally.h"
#include "controllers/gatewaypool/pool_status.h"
#include "crds/types/types.h"

namespace rdmastack::gatewaypool {

// What every condition is decided from.
struct PoolFacts {
  const PoolStatusInputs& in;
  const PoolNodeTally& nodes;
  // "3 nodes serve libcuobjserver 1.2.0.68": what serves now, for the messages.
  std::string serving_text;
  const controllers::ConditionSetter& set;
};

// The spec's gateway build and library are a known, compatible pair (else the decision's reason).
crd::Condition LibraryCompatibleCondition(const PoolFacts& f);
// Every selected node can run the gateway.
crd::Condition NodesVerifiedCondition(const PoolFacts& f);
// The spec is realised: every verified node serves the current track.
crd::Condition ReadyCondition(const PoolFacts& f);
// Gateways of the current spec are still starting somewhere, or nodes are moving.
crd::Condition ProgressingCondition(const PoolFacts& f);
// An upgrade is under way (`upgrade`: its summary in status.currentUpgrade).
crd::Condition UpgradingCondition(const PoolFacts& f,
                                  const std::optional<crd::CurrentUpgrade>& upgrade);
// Something the user should fix, even while serving.
crd::Condition DegradedCondition(const PoolFacts& f);

}  // namespace rdmastack::gatewaypool
