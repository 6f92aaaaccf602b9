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
  MarkAlive(id.node_name, clock_.WallNow(),
            [&copy](AgentSnapshot& s) { s.counters = std::move(copy); });
}

void AgentStateStore::OnHeartbeat(const agenthub::AgentIdentity& id, Clock::WallTime at) {
  MarkAlive(id.node_name, at, [](AgentSnapshot&) {});
}

void AgentStateStore::MarkAlive(const std::string& node, Clock::WallTime at,
                                const std::function<void(AgentSnapshot&)>& update) {
  bool was_silent = false;
  {
    std::lock_guard lock(mu_);
    auto it = nodes_.find(node);
    if (it == nodes_.end()) return;  // before connect: the hub delivers none, but be safe
    was_silent = at - it->second.last_seen > stale_ttl_;
    update(it->second);
    if (at > it->second.last_seen) it->second.last_seen = at;
  }
  // Heartbeats and counter samples come at probe cadence: a reconcile for each would cost every
  // node a pass, so only the return from a silence (the node may have gone stale) asks for one.
  if (was_silent) Notify(node);
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
