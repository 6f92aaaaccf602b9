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
};

// Whether `report` can change what the node's RdmaNode status says, given what the store held
// before it: the first report, other facts (another content hash, which covers the agent's
// version), or an agent that was disconnected or silent past the TTL. A report that differs only
// in its port counters is none of these: the store keeps it (the counters become metrics) and no
// reconcile runs for it, so a busy node's report each probe interval costs the operator no
// RdmaNode pass and no write.
bool ReportChangesStatus(const AgentSnapshot& before, const agent::v1::NodeReport& report,
                         Clock::WallTime now, Clock::Duration stale_ttl);

class AgentStateStore final : public agenthub::AgentEventSink {
 public:
  // `stale_ttl`: a heartbeat after a silence longer than this is a change worth a reconcile (the
  // node comes back from Stale); other heartbeats only move last_seen.
  AgentStateStore(Clock& clock, Clock::Duration stale_ttl);

  // Called (outside the store's lock) with the node name after each change a status can show
  // (not after a report whose only news is its counters: ReportChangesStatus).
  // Register before the hub delivers events.
  void Subscribe(std::function<void(const std::string& node)> on_change);

  std::optional<AgentSnapshot> Get(const std::string& node) const;
  // When each known node's agent was last heard (report, heartbeat or connect).
  std::map<std::string, Clock::WallTime> LastSeen() const;
  // Each known node's latest report (null until its first), for the metrics read at a scrape.
  std::map<std::string, std::shared_ptr<const agent::v1::NodeReport>> Reports() const;
  // The node is gone (deleted Node): drop its state.
  void Forget(const std::string& node);
  // When the store was made: the baseline for nodes an earlier operator process knew of but
  // whose agents have not reconnected yet.
  Clock::WallTime created_at() const { return created_at_; }
  Clock::Duration stale_ttl() const { return stale_ttl_; }

  void OnAgentConnected(const agenthub::AgentIdentity& id) override;
  void OnReport(const agenthub::AgentIdentity& id, const agent::v1::NodeReport& report) override;
  void OnHeartbeat(const agenthub::AgentIdentity& id, Clock::WallTime at) override;
  void OnAgentDisconnected(const agenthub::AgentIdentity& id) override;

 private:
  void Notify(const std::string& node);

  Clock& clock_;
  const Clock::Duration stale_ttl_;
  const Clock::WallTime created_at_;
  mutable std::mutex mu_;
  std::map<std::string, AgentSnapshot> nodes_;
  std::vector<std::function<void(const std::string&)>> subscribers_;
};

}  // namespace rdmastack::rdmanode
