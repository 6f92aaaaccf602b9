#pragma once
// What the controllers know about each node's agent, fed by the agent hub (AgentEventSink) and
// read by the RdmaNode reconciler. Kept in memory only: after an operator restart the agents
// reconnect and resend their reports.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "servers/agenthub/agent_events.h"

namespace rdmastack::rdmanode {

struct AgentSnapshot {
  // Null until the first report.
  std::shared_ptr<const agent::v1::NodeReport> report;
  std::string agent_version;
  Clock::WallTime last_report{};
  // Last report, heartbeat or connect: what the silent TTL is measured from.
  Clock::WallTime last_seen{};
  bool connected = false;
  // The port counters the agent last sent (null until then); metrics only, never a status.
  std::shared_ptr<const agent::v1::PortCounters> counters;
};

class AgentStateStore final : public agenthub::AgentEventSink {
 public:
  // `stale_ttl`: a heartbeat after a silence longer than this is a change worth a reconcile (the
  // node comes back from Stale); other heartbeats only move last_seen.
  AgentStateStore(Clock& clock, Clock::Duration stale_ttl);

  // Called (outside the store's lock) with the node name after each change a status can show.
  // Register before the hub delivers events.
  void Subscribe(std::function<void(const std::string& node)> on_change);

  std::optional<AgentSnapshot> Get(const std::string& node) const;
  // When each known node's agent was last heard (report, heartbeat or connect).
  std::map<std::string, Clock::WallTime> LastSeen() const;
  // Each node's latest port counters (nodes that sent none are left out), for the metrics read at
  // a scrape.
  std::map<std::string, std::shared_ptr<const agent::v1::PortCounters>> PortCounters() const;
  // The node is gone (deleted Node): drop its state.
  void Forget(const std::string& node);
  // When the store was made: the baseline for nodes an earlier operator process knew of but
  // whose agents have not reconnected yet.
  Clock::WallTime created_at() const { return created_at_; }
  Clock::Duration stale_ttl() const { return stale_ttl_; }

  void OnAgentConnected(const agenthub::AgentIdentity& id) override;
  void OnReport(const agenthub::AgentIdentity& id, const agent::v1::NodeReport& report) override;
  // Keeps the counters and, like a heartbeat, shows the agent alive; asks for a reconcile only
  // after a silence past the TTL (the counters themselves are in no status).
  void OnPortCounters(const agenthub::AgentIdentity& id,
                      const agent::v1::PortCounters& counters) override;
  void OnHeartbeat(const agenthub::AgentIdentity& id, Clock::WallTime at) override;
  void OnAgentDisconnected(const agenthub::AgentIdentity& id) override;

 private:
  void Notify(const std::string& node);
  // A sign of life from a connected node: applies `update`, moves last_seen forward to `at`.
  void MarkAlive(const std::string& node, Clock::WallTime at,
                 const std::function<void(AgentSnapshot&)>& update);

  Clock& clock_;
  const Clock::Duration stale_ttl_;
  const Clock::WallTime created_at_;
  mutable std::mutex mu_;
  std::map<std::string, AgentSnapshot> nodes_;
  std::vector<std::function<void(const std::string&)>> subscribers_;
};

}  // namespace rdmastack::rdmanode
