#pragma once
// Command-line flags of rdmastack-operator, named as kubebuilder-generated operators name them.
// Parsing is pure (unit-tested); main.cc acts on the result.

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/logging.h"
#include "base/status.h"
#include "controllers/clientprofile/clientprofile_controllers.h"
#include "controllers/common/node_pod_policy.h"
#include "controllers/gatewaypool/gatewaypool_controllers.h"
#include "controllers/rdmanode/node_controllers.h"
#include "operator/runtime/manager.h"
#include "servers/agenthub/agent_hub.h"
#include "servers/webhook/webhook_server.h"

namespace rdmastack::operator_cmd {

struct OperatorOptions {
  std::string kubeconfig;  // "" = in-cluster config, else $KUBECONFIG
  bool leader_elect = false;
  std::string leader_election_namespace;  // "" = the pod's namespace, else rdmastack-system
  std::string leader_election_id = "rdmastack-operator";
  std::chrono::milliseconds lease_duration{15'000};
  std::chrono::milliseconds renew_deadline{10'000};
  std::chrono::milliseconds retry_period{2'000};
  std::chrono::milliseconds graceful_shutdown_timeout{30'000};
  std::string metrics_bind_address = ":8443";  // "0" disables
  bool metrics_secure = true;
  std::string metrics_cert_dir;                     // "" = self-signed certificate made at start-up
  std::string health_probe_bind_address = ":8081";  // "0" disables
  std::string agent_bind_address = ":9443";
  // What every listener lets peers hold (docs/operations.md "Listeners"): connections in all
  // and per peer address, and for the HTTP ones (probes, metrics, webhook) the time to a request
  // head and between two requests of a kept-alive connection.
  std::chrono::milliseconds http_header_timeout = runtime::HttpDeadlines{}.header;
  std::chrono::milliseconds http_idle_timeout = runtime::HttpDeadlines{}.idle;
  runtime::ConnectionLimits health_probe_connections =
      runtime::ManagerOptions{}.health_probe_connections;
  runtime::ConnectionLimits metrics_connections = runtime::MetricsServerOptions{}.connections;
  runtime::ConnectionLimits webhook_connections = webhook::WebhookServerOptions{}.connections;
  runtime::ConnectionLimits agent_hub_connections = agenthub::AgentHubOptions{}.connections;
  // The agent hub's gRPC memory quota, and how soon a stream must finish its Hello.
  int64_t agent_hub_memory_quota_bytes =
      static_cast<int64_t>(agenthub::AgentHubOptions{}.memory_quota_bytes);
  std::chrono::milliseconds agent_hub_hello_timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(
          agenthub::HubStreamOptions{}.hello_timeout);
  // The node agent DaemonSet the operator keeps (docs/operator.md, "Node agents").
  std::string agent_image;        // "" = ghcr.io/rdmastack/agent:<operator version>
  std::string agent_namespace;    // "" = the pod's namespace, else rdmastack-system
  std::string agent_hub_address;  // "" = rdmastack-agenthub.<agent namespace>.svc:<hub port>
  std::map<std::string, std::string> agent_pod_labels;
  std::vector<std::string> agent_args;
  // JSON the chart renders with toJson: extra tolerations of the agent pods (an array of
  // Tolerations, added to those of the pools and profiles) and the agent container's resources
  // (a ResourceRequirements object; "" keeps the built-in requests and limits).
  std::string agent_tolerations;
  std::string agent_resources;
  std::chrono::milliseconds agent_stale_ttl{60'000};
  std::chrono::milliseconds node_label_grace{300'000};
  // Publish each node's RDMA ports as DRA devices (rdmanode/resource_slice.h).
  bool dra_resource_slices = false;
  // Validity of the serving certificate the hub generates (renewed after 2/3 of it).
  std::chrono::milliseconds agent_hub_cert_validity{std::chrono::hours(24 * 90)};
  // What one peer address may make the hub review (agenthub/address_throttle.h).
  agenthub::AddressLimits agent_hub_per_address;
  // The pod admission webhook (docs/operations.md "Workload injection"): "0" disables it.
  std::string webhook_bind_address = ":9444";
  std::string webhook_configuration = "rdmastack-clientprofile-injector";
  // Extra names in its generated serving certificate (besides the rdmastack-webhook Service's),
  // e.g. 127.0.0.1 when the API server calls an operator outside the cluster.
  std::vector<std::string> webhook_hosts;
  std::chrono::milliseconds webhook_cert_validity{std::chrono::hours(24 * 90)};
  // What every node pod (agent, gateway, client) gets: registry credentials (the chart's
  // image.pullSecrets) and a priority class ("none": no priorityClassName).
  std::vector<std::string> image_pull_secrets;
  std::string node_priority_class = "system-node-critical";
  // Which images and host directories pools and profiles may name (controllers/common/tenancy.h).
  controllers::TenancyPolicy tenancy;
  // The gateway DaemonSets of GatewayPools (docs/operator.md, "Gateways").
  std::map<std::string, std::string> gateway_pod_labels;
  std::vector<std::pair<std::string, std::string>> gateway_env;
  std::vector<std::string> gateway_host_mounts;
  std::string gateway_rdma_resource = "rdma/hca_shared_devices_a";  // "none": request nothing
  std::string compatibility_file;                                   // "" = built in
  std::string upgrade_validation = "s3";                            // or "pod-ready"
  std::string compatibility_configmap;                              // NAMESPACE/NAME
  // The client data-plane DaemonSets of ClientProfiles (docs/operator.md, "GPU clients").
  std::string client_image;  // "" = ghcr.io/rdmastack/client:<operator version>
  std::map<std::string, std::string> client_pod_labels;
  std::vector<std::string> client_args;
  // What a profile's library image may put on a node (bytes per file, per image); 0 = the
  // client's default (--client-library-max-file-size, --client-library-max-size).
  int64_t client_library_max_file_bytes = 0;
  int64_t client_library_max_bytes = 0;
  // The most the operator reads of one answer of a gateway's admin API (list-users, ListBuckets,
  // a bucket policy; s3::VersitygwAdmin).
  int64_t gateway_answer_max_bytes = static_cast<int64_t>(s3::kDefaultMaxAnswerBytes);
  // Optional controllers: "*" (all), "-name" turns one off (kube-controller-manager's rule).
  // Known: gatewaypool, clientprofile.
  std::vector<std::string> controllers = {"*"};
  std::string log_level = "info";
  LogFormat log_format = LogFormat::kText;
  bool show_version = false;
  bool show_help = false;
};

// `args` excludes the program name. Accepts --flag=value and --flag value; a boolean flag alone
// means true. Every error is one line that names the flag.
StatusOr<OperatorOptions> ParseOperatorOptions(const std::vector<std::string>& args);

extern const char* const kOperatorUsage;

// The node controllers' settings from the flags; `default_namespace` is the pod's namespace (or
// rdmastack-system) for an unset --agent-namespace.
// The pull secrets and priority class of every node pod (agent, gateway, client).
controllers::NodePodPolicy NodePodPolicyFrom(const OperatorOptions& options);

rdmanode::NodeControllerOptions NodeControllerOptionsFrom(const OperatorOptions& options,
                                                          const std::string& default_namespace);

// Whether --controllers enables the optional controller `name`.
bool ControllerEnabled(const OperatorOptions& options, std::string_view name);

// --client-image, or the client image of this release.
std::string ClientImage(const OperatorOptions& options);
// The GatewayPool controller's settings from the flags.
gatewaypool::GatewayPoolControllerOptions GatewayPoolOptionsFrom(const OperatorOptions& options);

// The ClientProfile controller's settings from the flags.
clientprofile::ClientProfileControllerOptions ClientProfileOptionsFrom(
    const OperatorOptions& options);

}  // namespace rdmastack::operator_cmd

namespace rdmastack::operator_cmd {

// The agent hub's settings, consistent with the DaemonSet `nodes` renders: it accepts the agent
// ServiceAccount of the agent namespace, keeps its certificates and the CA ConfigMap the agent
// pods mount in that namespace, and its serving certificate names the host agents dial plus the
// hub Service's DNS names.
// The webhook's settings; `ns` holds its certificate Secrets and Service, like the agent hub's
// (the agent namespace: the chart's release namespace).
webhook::WebhookServerOptions WebhookOptionsFrom(const OperatorOptions& options,
                                                 const std::string& ns);

agenthub::AgentHubOptions AgentHubOptionsFrom(const OperatorOptions& options,
                                              const rdmanode::NodeControllerOptions& nodes);

// The probe and metrics listeners' limits and deadlines from the flags, into the manager's
// options.
void ApplyListenerOptions(const OperatorOptions& options, runtime::ManagerOptions* manager);

}  // namespace rdmastack::operator_cmd
