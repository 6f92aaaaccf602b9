#pragma once
// The seam between the agent hub (gRPC streams, TLS, identity) and the controllers that turn what
// agents say into RdmaNode objects and node labels. The hub depends on nothing but these
// interfaces; the controllers never see a stream.

#include <chrono>
#include <string>

#include "agents/proto/agenthub.pb.h"

namespace rdmastack::agenthub {

// Who an authenticated stream speaks for. The hub fills it from the TokenReview and the Pod the
// token is bound to, never from the agent's claim alone.
struct AgentIdentity {
  std::string node_name;
  std::string pod_namespace;
  std::string pod_name;
  std::string pod_uid;
  std::string agent_version;
};

// Receives what authenticated agents say. Called on the hub's threads: implementations are
// thread-safe and do not block (record, then queue work for a controller).
class AgentEventSink {
 public:
  virtual ~AgentEventSink() = default;
  // A stream for id.node_name was accepted; a second stream for the same node replaces the first
  // (the first one's OnAgentDisconnected comes before this).
  virtual void OnAgentConnected(const AgentIdentity& id) = 0;
  virtual void OnReport(const AgentIdentity& id, const agent::v1::NodeReport& report) = 0;
  // The node's port counters moved (sent apart from the report: they feed metrics only).
  virtual void OnPortCounters(const AgentIdentity& id, const agent::v1::PortCounters& counters) = 0;
  virtual void OnHeartbeat(const AgentIdentity& id, std::chrono::system_clock::time_point at) = 0;
  virtual void OnAgentDisconnected(const AgentIdentity& id) = 0;
};

// Pushes requirements down the streams. The hub keeps the latest value per node, sends it when a
// stream for that node is accepted, and re-sends only when it changes.
class RequirementsPublisher {
 public:
  virtual ~RequirementsPublisher() = default;
  virtual void Publish(const std::string& node_name,
                       const agent::v1::Requirements& requirements) = 0;
  // The node is gone (deleted Node): forget its requirements.
  virtual void Forget(const std::string& node_name) = 0;
};

}  // namespace rdmastack::agenthub
