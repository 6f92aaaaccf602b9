#pragma once
// Agent report + agent state -> RdmaNode status (pure). See docs/api.md "RdmaNode" for the
// conditions and their reasons.

#include <optional>

#include "agents/proto/agenthub.pb.h"
#include "base/clock.h"
#include "controllers/rdmanode/agent_state_store.h"
#include "crds/types/rdmanode_api.h"
#include "crds/types/types.h"

namespace rdmastack::rdmanode {

struct StatusInputs {
  // The status the RdmaNode has now; null when there is none yet.
  const crd::RdmaNodeStatus* previous = nullptr;
  // What the agent hub told this process; nullopt when this process has heard nothing (then the
  // previous facts stand until the TTL, counted from `known_since`, runs out).
  std::optional<AgentSnapshot> agent;
  Clock::WallTime now{};
  Clock::WallTime known_since{};
  Clock::Duration stale_ttl{};
  int64_t generation = 0;
};

struct ComputedStatus {
  crd::RdmaNodeStatus status;
  // When the status would change with no new event (the TTL runs out); nullopt: not before one.
  std::optional<Clock::WallTime> recheck_at;
};

ComputedStatus ComputeRdmaNodeStatus(const StatusInputs& in);

// The facts of a report in RdmaNode form (devices, netdevs, GPUs, host, checks, verdicts, link
// layer), clipped to the schema's limits, duplicates of list-map keys dropped.
void FillFacts(const agent::v1::NodeReport& report, crd::RdmaNodeStatus* status);

const crd::Condition* FindCondition(const crd::RdmaNodeStatus& status, std::string_view type);
// Not on a temporary: the pointer would dangle.
const crd::Condition* FindCondition(crd::RdmaNodeStatus&& status, std::string_view type) = delete;

}  // namespace rdmastack::rdmanode
