#pragma once
// The node agent DaemonSet the operator keeps (pure rendering; agent_daemonset_reconciler.h
// writes it). It runs only on nodes some GatewayPool or ClientProfile selects.

#include <optional>
#include <string>
#include <vector>

#include "controllers/common/node_pod_policy.h"
#include "controllers/common/render.h"
#include "crds/types/types.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::rdmanode {

inline constexpr char kAgentName[] = "rdmastack-agent";
inline constexpr char kAgentServiceAccount[] = "rdmastack-agent";
inline constexpr char kAgentHubCaConfigMap[] = "rdmastack-agenthub-ca";
inline constexpr char kAgentHubAudience[] = "rdmastack-agenthub";
using controllers::kAppliedHashAnnotation;

struct AgentDaemonSetOptions {
  std::string image;
  std::string namespace_ = "rdmastack-system";
  std::string hub_address;                        // host:port the agents dial
  std::string tls_server_name;                    // "" = the host of hub_address
  std::map<std::string, std::string> pod_labels;  // extra pod labels (rdmastack.io/simulate=run)
  std::vector<std::string> extra_args;            // appended to `rdmastack-agent run`
  int64_t token_expiration_seconds = 3600;
  // From the chart (--agent-tolerations, --agent-resources), checked as JSON when parsed: extra
  // tolerations (an array) and the container's resources (an object; "" = built-in defaults).
  std::string extra_tolerations_json;
  std::string resources_json;
  controllers::NodePodPolicy node_pods;  // pull secrets and priority class (the chart's)
};

// Nullopt when no pool or profile exists (then no agent runs anywhere). The node affinity ORs one
// term per distinct nodeSelector; an empty selector among them means every node. Tolerations are
// the union of the pools' and profiles'. The object carries kAppliedHashAnnotation.
std::optional<k8s::JsonObject> RenderAgentDaemonSet(
    const AgentDaemonSetOptions& options, const std::vector<crd::GatewayPool>& pools,
    const std::vector<crd::ClientProfile>& profiles);

}  // namespace rdmastack::rdmanode
