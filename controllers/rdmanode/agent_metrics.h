#pragma once
// rdmastack_node_agent_report_age_seconds: how long ago each node's agent was last heard. Only
// the leader hears agents (it alone serves the hub), so only the leader has these series; a
// standby's store is empty.

#include "base/clock.h"
#include "controllers/rdmanode/agent_state_store.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::rdmanode {

runtime::Sampler AgentAgeSampler(const AgentStateStore& agents, const Clock& clock);

}  // namespace rdmastack::rdmanode
