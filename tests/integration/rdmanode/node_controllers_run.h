#pragma once
// The node controllers of the operator (RdmaNode, labels, requirements, agent DaemonSet) in a
// manager against the real API server, with the agent state store fed by the test instead of the
// hub. Writes carry a user agent of their own so the audit log attributes them.

#include <memory>
#include <string>
#include <thread>

#include "controllers/gatewaypool/gatewaypool_controllers.h"
#include "controllers/rdmanode/agent_state_store.h"
#include "controllers/rdmanode/node_controllers.h"
#include "controllers/rdmanode/requirements_reconciler.h"
#include "operator/k8s/client.h"
#include "operator/runtime/manager.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::rdmanode::integration {

// A GatewayPool `name` selecting the nodes labelled `label: value` (the seed's gateway and
// library, root keys in Secret kv-root).
std::string PoolYaml(const std::string& name, const std::string& label, const std::string& value);

// kubectl apply --server-side of crds/*.yaml, waiting until they are Established.
void RequireCrds(const ::rdmastack::testing::ClusterEnv& env);

class NodeControllersRun {
 public:
  NodeControllersRun(const ::rdmastack::testing::ClusterEnv& env, const std::string& name,
                     Clock::Duration stale_ttl, NodeControllerOptions options,
                     bool gateway_pools = false);
  ~NodeControllersRun();  // stops the manager

  AgentStateStore& agents() { return *agents_; }
  LatestRequirements& requirements() { return requirements_; }
  k8s::Client& client() { return *client_; }
  NodeControllers& controllers() { return *controllers_; }
  const std::string& user_agent() const { return user_agent_; }
  bool ready() const { return manager_ && manager_->Ready(); }
  // The manager's metrics in the Prometheus text format.
  std::string RenderMetrics() { return manager_->metrics().Render(); }

 private:
  std::string user_agent_;
  k8s::ClientPtr client_;
  std::unique_ptr<AgentStateStore> agents_;
  LatestRequirements requirements_;
  std::unique_ptr<runtime::Manager> manager_;
  std::unique_ptr<NodeControllers> controllers_;
  // With `gateway_pools`: the GatewayPool controllers too, on the same Node cache.
  std::unique_ptr<gatewaypool::GatewayPoolControllers> pools_;
  std::thread thread_;
};

}  // namespace rdmastack::rdmanode::integration
