#pragma once
// rdmastack_rdma_port_*_total: each node's RDMA port counters, as its agent last reported them
// (docs/operations.md "Metrics"), from the PortCounters message the agent sends apart from its
// report. Read from the agent state store at each scrape, so only the
// leader, which serves the agent hub, has them, and a node's series go when its Node does (the
// RdmaNode reconciler forgets its agent state then).
//
// Bounded: labels node, device and port only, one family per counter of node::kPortCounters, at
// most kMaxPortsPerNode ports per node. A node with more ports (no platform today has more than
// 8 compute and 2 storage NICs) exports its first ones in the agent's order (devices by name).

#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agents/proto/agenthub.pb.h"
#include "controllers/rdmanode/agent_state_store.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::rdmanode {

inline constexpr size_t kMaxPortsPerNode = 16;

struct PortCounterMetric {
  std::string_view counter;  // the agent's name for it (node/probe/port_counters.h)
  std::string_view metric;
  std::string_view help;
};

// One row per row of node::kPortCounters, in its order.
extern const std::array<PortCounterMetric, 10> kPortCounterMetrics;

using NodePortCounters = std::map<std::string, std::shared_ptr<const agent::v1::PortCounters>>;

// The counter families of every node's latest counters (pure; what the sampler renders).
std::vector<runtime::SampledFamily> PortCounterFamilies(const NodePortCounters& nodes);

runtime::Sampler PortCounterSampler(const AgentStateStore& agents);

}  // namespace rdmastack::rdmanode
