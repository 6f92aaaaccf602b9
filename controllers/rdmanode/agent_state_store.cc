#include "controllers/rdmanode/agent_state_store.h"

namespace rdmastack::rdmanode {

AgentStateStore::AgentStateStore(Clock& clock, Clock::Duration stale_ttl)
    : clock_(clock), stale_ttl_(stale_ttl), created_at_(clock.WallNow()) {}

void AgentStateStore::Subscribe(std::function<void(const std::string&)> on_change) {
  std::lock_guard lock(mu_);
  subscribers_.push_back(std::move(on_change));
}

std::optional<AgentSnapshot> AgentStateStore::Get(const std::string& node) const {
  std::lock_guard lock(mu_);
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return std::nullopt;
  return it->second;
}

void AgentStateStore::Forget(const std::string& node) {
  std::lock_guard lock(mu_);
  nodes_.erase(node);
}

void AgentStateStore::OnAgentConnected(const agenthub::AgentIdentity& id) {
  {
    std::lock_guard lock(mu_);
    AgentSnapshot& s = nodes_[id.node_name];
    s.connected = true;
    s.agent_version = id.agent_version;
    s.last_seen = clock_.WallNow();
  }
  Notify(id.node_name);
}

void AgentStateStore::OnReport(const agenthub::AgentIdentity& id,
                               const agent::v1::NodeReport& report) {
  auto copy = std::make_shared<const agent::v1::NodeReport>(report);
  {
    std::lock_guard lock(mu_);
    AgentSnapshot& s = nodes_[id.node_name];
    const Clock::WallTime now = clock_.WallNow();
    s.report = std::move(copy);
    if (!report.agent_version().empty()) s.agent_version = report.agent_version();
    s.connected = true;
    s.last_report = now;
    s.last_seen = now;
  }
  Notify(id.node_name);
}

void AgentStateStore::OnPortCounters(const agenthub::AgentIdentity& id,
                                     const agent::v1::PortCounters& counters) {
  auto copy = std::make_shared<const agent::v1::PortCounters>(counters);
  bool was_silent = false;
  {
    std::lock_guard lock(mu_);
    auto it = nodes_.find(id.node_name);
    if (it == nodes_.end()) return;  // before connect: the hub delivers none, but be safe
    const Clock::WallTime now = clock_.WallNow();
    was_silent = now - it->second.last_seen > stale_ttl_;
    it->second.counters = std::move(copy);
    if (now > it->second.last_seen) it->second.last_seen = now;
  }
  if (was_silent) Notify(id.node_name);
}

void AgentStateStore::OnHeartbeat(const agenthub::AgentIdentity& id, Clock::WallTime at) {
  bool was_silent = false;
  {
    std::lock_guard lock(mu_);
    auto it = nodes_.find(id.node_name);
    if (it == nodes_.end()) return;  // a heartbeat before connect: nothing to refresh
    was_silent = at - it->second.last_seen > stale_ttl_;
    if (at > it->second.last_seen) it->second.last_seen = at;
  }
  if (was_silent) Notify(id.node_name);
}

std::map<std::string, Clock::WallTime> AgentStateStore::LastSeen() const {
  std::map<std::string, Clock::WallTime> out;
  std::lock_guard lock(mu_);
  for (const auto& [node, snapshot] : nodes_) out.emplace(node, snapshot.last_seen);
  return out;
}

std::map<std::string, std::shared_ptr<const agent::v1::PortCounters>>
AgentStateStore::PortCounters() const {
  std::map<std::string, std::shared_ptr<const agent::v1::PortCounters>> out;
  std::lock_guard lock(mu_);
  for (const auto& [node, snapshot] : nodes_) {
    if (snapshot.counters != nullptr) out.emplace(node, snapshot.counters);
  }
  return out;
}

void AgentStateStore::OnAgentDisconnected(const agenthub::AgentIdentity& id) {
  {
    std::lock_guard lock(mu_);
    auto it = nodes_.find(id.node_name);
    if (it == nodes_.end()) return;
    it->second.connected = false;
  }
  Notify(id.node_name);
}

void AgentStateStore::Notify(const std::string& node) {
  std::vector<std::function<void(const std::string&)>> subscribers;
  {
    std::lock_guard lock(mu_);
    subscribers = subscribers_;
  }
  for (const auto& fn : subscribers) fn(node);
}

}  // namespace rdmastack::rdmanode
