#include "controllers/rdmanode/agent_metrics.h"

#include <algorithm>
#include <chrono>

namespace rdmastack::rdmanode {

runtime::Sampler AgentAgeSampler(const AgentStateStore& agents, const Clock& clock) {
  return [&agents, &clock] {
    runtime::SampledFamily family{
        "rdmastack_node_agent_report_age_seconds",
        "Seconds since the node's agent was last heard (report, heartbeat or connect); served by "
        "the leader only.",
        {}};
    const Clock::WallTime now = clock.WallNow();
    for (const auto& [node, seen] : agents.LastSeen()) {
      const double age = std::chrono::duration<double>(now - seen).count();
      family.series.push_back({{{"node", node}}, std::max(0.0, age)});
    }
    return std::vector<runtime::SampledFamily>{std::move(family)};
  };
}

}  // namespace rdmastack::rdmanode
