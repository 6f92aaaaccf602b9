#pragma once
// Registers the node-side controllers with a manager: RdmaNode status, node labels, agent
// requirements and the agent DaemonSet. The agent hub feeds `agents` (AgentEventSink) and
// receives requirements through `publisher`; both are made by the caller and outlive the manager.

#include <memory>

#include "controllers/common/node_cache.h"
#include "controllers/rdmanode/agent_daemonset.h"
#include "controllers/rdmanode/agent_state_store.h"
#include "operator/runtime/manager.h"
#include "servers/agenthub/agent_events.h"

namespace rdmastack::rdmanode {

struct NodeControllerOptions {
  // How long a Node keeps its labels after its RdmaNode went Reporting=False.
  Clock::Duration label_grace = std::chrono::minutes(5);
  // Concurrent reconciles of the RdmaNode and node-label controllers. Each pass is one or two
  // API round trips (RdmaNode apply, its status; a Node label patch) and almost no CPU here, so
  // one worker leaves the API server idle between them: when thousands of agents report at once
  // (a cluster's first start, the operator's restart) the drain is bounded by latency, not by
  // either side's CPU. Kept within the REST client's idle-connection pool (8) together with the
  // other controllers, so the extra workers reuse their TLS connections.
  int workers = 4;
  AgentDaemonSetOptions agent;
  // The DRA driver whose ResourceSlices publish each node's RDMA ports (resource_slice.h); ""
  // publishes none (the chart's dra.enabled off).
  std::string dra_driver;
};

class NodeControllers {
 public:
  // Creates the informers and controllers (started by manager.Run()).
  NodeControllers(runtime::Manager& manager, Clock& clock, AgentStateStore& agents,
                  agenthub::RequirementsPublisher& publisher, NodeControllerOptions options);
  ~NodeControllers();
  NodeControllers(const NodeControllers&) = delete;
  NodeControllers& operator=(const NodeControllers&) = delete;

  // The operator's Node cache (node_cache.h), made here first so that its transform is the one
  // the shared informer keeps; the pool and profile controllers are given it.
  controllers::NodeCache& node_cache() { return *node_cache_; }

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
  std::unique_ptr<controllers::NodeCache> node_cache_;
};

}  // namespace rdmastack::rdmanode
