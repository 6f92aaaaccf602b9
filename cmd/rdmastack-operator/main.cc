// rdmastack-operator: flags -> logging -> API client -> manager (probes, metrics, leader election,
// controllers) until SIGTERM/SIGINT or a lost lease. Exit codes: 0 after a requested stop, 1 when
// the lease was lost or start-up failed, 2 for a bad flag.

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <random>

#include "base/version.h"
#include "cmd/rdmastack-operator/operator_options.h"
#include "cmd/rdmastack-operator/startup_report.h"
#include "controllers/common/cache_transforms.h"
#include "controllers/metrics/status_samplers.h"
#include "controllers/rdmanode/agent_metrics.h"
#include "controllers/rdmanode/agent_state_store.h"
#include "controllers/rdmanode/node_controllers.h"
#include "controllers/rdmanode/port_counter_metrics.h"
#include "controllers/workload/pod_webhook.h"
#include "crds/types/kinds.h"
#include "crds/types/schema_revision.h"
#include "operator/k8s/api_error.h"
#include "operator/k8s/client.h"
#include "operator/k8s/config.h"
#include "operator/runtime/manager.h"
#include "operator/runtime/signals.h"
#include "servers/agenthub/agent_hub.h"
#include "servers/agenthub/serving_pod_label.h"
#include "servers/agenthub/tls_buffer_mapping.h"

namespace rdmastack::operator_cmd {
namespace {

// Unique per process, like controller-runtime's "<hostname>_<uuid>": a restarted pod with the same
// name must not be mistaken for the old holder.
std::string LeaderIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
    std::snprintf(host, sizeof host, "unknown");
  std::random_device rd;
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%08x%08x", rd(), rd());
  return std::string(host) + "_" + suffix;
}

// --kubeconfig, else the in-cluster config when running in a pod, else $KUBECONFIG.
StatusOr<k8s::Config> LoadConfig(const OperatorOptions& options) {
  if (!options.kubeconfig.empty()) return k8s::LoadKubeconfig(options.kubeconfig);
  if (std::getenv("KUBERNETES_SERVICE_HOST") != nullptr) return k8s::LoadInClusterConfig();
  const char* env = std::getenv("KUBECONFIG");
  if (env == nullptr || *env == '\0') {
    return FailedPreconditionError(
        "no cluster configuration: pass --kubeconfig, set $KUBECONFIG, or run in a pod");
  }
  return k8s::LoadDefaultConfig();
}

// The pod's namespace, else rdmastack-system.
std::string OwnNamespace() {
  if (auto ns = k8s::InClusterNamespace(); ns.ok() && !ns->empty()) return *ns;
  return "rdmastack-system";
}

std::string LeaseNamespace(const OperatorOptions& options) {
  if (!options.leader_election_namespace.empty()) return options.leader_election_namespace;
  return OwnNamespace();
}

// The installed CRDs against the ones this build writes (crds/types/schema_revision.h).
Status InstalledCrdsCurrent(k8s::Client& client) {
  std::vector<crd::InstalledCrd> installed;
  for (const crd::CrdRevision& built : crd::BuiltCrdRevisions()) {
    crd::InstalledCrd crd{std::string(built.name), false, std::nullopt};
    auto got = client.Get(k8s::kinds::CustomResourceDefinition(), "", built.name);
    if (got.ok()) {
      crd.found = true;
      crd.revision = got->Annotation(crd::kSchemaRevisionAnnotation);
    } else if (!k8s::IsNotFound(got.status())) {
      return got.status().WithContext("read CRD " + crd.name);
    }
    installed.push_back(std::move(crd));
  }
  return crd::CheckInstalledCrds(installed);
}

int Run(const OperatorOptions& options) {
  const std::string identity = LeaderIdentity();
  auto config = LoadConfig(options);
  if (!config.ok()) {
    spdlog::error("{}", config.status().ToString());
    return 1;
  }
  // The identity in the user agent lets the API server's audit log say which process wrote what.
  config->user_agent = std::string("rdmastack-operator/") + kVersion + " (" + identity + ")";
  auto client = k8s::NewRestClient(*config);
  if (!client.ok()) {
    spdlog::error("{} ({})", client.status().ToString(), config->source);
    return 1;
  }
  spdlog::info("rdmastack-operator {} starting as {} against {}, config: {}", kVersion, identity,
               config->server, config->source);
  if (auto who = WhoAmI(**client); who.ok()) {
    spdlog::info("authenticated as {}", *who);
  } else {
    spdlog::warn("SelfSubjectReview failed: {}", who.status().ToString());
  }
  if (auto version = ApiServerVersion(*config); version.ok()) {
    spdlog::info("API server version {}", *version);
  } else {
    spdlog::warn("cannot read the API server version: {}", version.status().ToString());
  }

  runtime::ManagerOptions manager_options;
  manager_options.health_probe_bind_address = options.health_probe_bind_address;
  manager_options.metrics.bind_address = options.metrics_bind_address;
  manager_options.metrics.secure = options.metrics_secure;
  manager_options.metrics.cert_dir = options.metrics_cert_dir;
  ApplyListenerOptions(options, &manager_options);
  manager_options.graceful_shutdown_timeout = options.graceful_shutdown_timeout;
  manager_options.api_host = config->server;
  manager_options.events.reporting_controller = "rdmastack.io/operator";
  manager_options.events.reporting_instance = identity;
  if (options.leader_elect) {
    runtime::LeaderElectionConfig le;
    le.lease_namespace = LeaseNamespace(options);
    le.lease_name = options.leader_election_id;
    le.identity = identity;
    le.lease_duration = options.lease_duration;
    le.renew_deadline = options.renew_deadline;
    le.retry_period = options.retry_period;
    manager_options.leader_election = le;
  } else {
    // One process, no lease to renew: a read of the (absent) Lease stands in for the renewal as the
    // storage request that shows an etcd outage (operator/runtime/api_probe.h).
    manager_options.api_probe = runtime::ApiProbeConfig{
        LeaseNamespace(options), options.leader_election_id, options.retry_period};
  }
  manager_options.lead_precondition = [&c = **client] { return InstalledCrdsCurrent(c); };
  manager_options.lead_precondition_reason = "CRDsOutdated";
  // The agent hub feeds `agents` what authenticated agents say; the node controllers publish each
  // node's requirements through the hub, down that node's stream.
  rdmanode::AgentStateStore agents(RealClock::Instance(), options.agent_stale_ttl);
  runtime::Manager manager(**client, RealClock::Instance(), manager_options);
  const rdmanode::NodeControllerOptions node_options =
      NodeControllerOptionsFrom(options, OwnNamespace());
  // Reads and TokenReviews through the plain client (a standby's reviews are not writes); the
  // certificate Secret and CA ConfigMap through the manager's leader-fenced one.
  agenthub::AgentHub hub(**client, manager.client(), manager.events(), manager.metrics(), agents,
                         RealClock::Instance(), AgentHubOptionsFrom(options, node_options));
  rdmanode::NodeControllers node_controllers(manager, RealClock::Instance(), agents, hub,
                                             node_options);
  std::unique_ptr<gatewaypool::GatewayPoolControllers> gateway_pools;
  if (ControllerEnabled(options, "gatewaypool")) {
    auto created = gatewaypool::GatewayPoolControllers::Create(manager, RealClock::Instance(),
                                                               node_controllers.node_cache(),
                                                               GatewayPoolOptionsFrom(options));
    if (!created.ok()) {
      spdlog::error("start-up failed: {}", created.status().ToString());
      return 1;
    }
    gateway_pools = std::move(*created);
  }
  std::unique_ptr<clientprofile::ClientProfileControllers> client_profiles;
  if (ControllerEnabled(options, "clientprofile")) {
    clientprofile::ClientProfileControllerOptions profile_options =
        ClientProfileOptionsFrom(options);
    // The pinned client library bytes come from the pools' compatibility data (its ConfigMap).
    if (gateway_pools)
      profile_options.render.client_library_sha256 = gateway_pools->ClientLibrarySha256();
    client_profiles = std::make_unique<clientprofile::ClientProfileControllers>(
        manager, RealClock::Instance(), node_controllers.node_cache(), std::move(profile_options));
  }
  // Figures a storage team alerts on (docs/operations.md "Metrics"): status-derived families read
  // from the caches at scrape time, the agents' silence and port counters from the hub's memory
  // (leader only).
  statusmetrics::AddStatusSamplers(manager, {.gateway_pools = gateway_pools != nullptr,
                                             .client_profiles = client_profiles != nullptr,
                                             .rdma_nodes = true});
  manager.metrics().AddSampler(rdmanode::AgentAgeSampler(agents, RealClock::Instance()));
  // Each node's RDMA port counters, as its agent last reported them (leader only, like the age).
  manager.metrics().AddSampler(rdmanode::PortCounterSampler(agents));
  manager.metrics()
      .GaugeFamily("rdmastack_operator_build_info", "The operator's version (value 1).",
                   {"version"})
      .With({kVersion})
      .Set(1);
  // Only the leader serves agents: it writes the certificates, and agent state lives in its
  // memory.
  manager.AddLeaderRunnable({"agent hub", [&hub] { return hub.Start(); }, [&hub] { hub.Stop(); }});
  // In a pod, the hub's Service selects the leader's pod alone (serving_pod_label.h): labelled
  // once the hub listens, unlabelled (stopped in reverse order) before it stops. A host process
  // (the test harness) has no pod; its agents dial --agent-hub-address.
  std::unique_ptr<agenthub::ServingPodLabel> serving_label;
  if (const char* pod = std::getenv("POD_NAME"); pod != nullptr && *pod != '\0') {
    serving_label =
        std::make_unique<agenthub::ServingPodLabel>(manager.client(), OwnNamespace(), pod);
    manager.AddLeaderRunnable({"agent hub Service endpoint",
                               [&serving_label] { return serving_label->Set(); },
                               [&serving_label] { serving_label->Clear(); }});
  }
  // Every replica serves the pod webhook: the API server calls whichever pod its Service picks.
  // Its certificate Secret and caBundle are written through the fenced client (by the leader);
  // the manager stops it before the lease is released, so no write of it follows the release.
  std::unique_ptr<workload::PodWebhook> pod_webhook;
  std::unique_ptr<webhook::WebhookServer> webhook;
  if (options.webhook_bind_address != "0") {
    pod_webhook = std::make_unique<workload::PodWebhook>(
        controllers::CachedInformer(manager, crd::kinds::ClientProfile()), manager.metrics());
    webhook = std::make_unique<webhook::WebhookServer>(
        **client, manager.client(), RealClock::Instance(), manager.metrics(),
        workload::kMutatePodsPath,
        [&pod_webhook](const runtime::HttpRequest& r) { return pod_webhook->Handle(r); },
        WebhookOptionsFrom(options, node_options.agent.namespace_));
    manager.AddRunnable({"pod webhook",
                         [&webhook] {
                           webhook->Start();
                           return OkStatus();
                         },
                         [&webhook] { webhook->Stop(); }});
  }
  // Declared after the manager so that its thread is joined before the manager goes away.
  runtime::ShutdownSignals signals;
  signals.Watch([&manager](int signo) {
    spdlog::info("received {}; shutting down", signo == SIGTERM ? "SIGTERM" : "SIGINT");
    manager.RequestStop();
  });
  const Status result = manager.Run();
  if (result.ok()) {
    spdlog::info("stopped");
    return 0;
  }
  if (result.code() == StatusCode::kAborted) {
    spdlog::error("exiting: {}", result.ToString());
  } else {
    spdlog::error("start-up failed: {}", result.ToString());
  }
  return 1;
}

}  // namespace
}  // namespace rdmastack::operator_cmd

int main(int argc, char** argv) {
  using namespace rdmastack;
  // Before OpenSSL allocates anything (servers/agenthub/tls_buffer_mapping.h).
  const Status tls_buffer_mapping = agenthub::MapLargeOpenSslBuffers();
  // Before any thread starts: every thread inherits the blocked SIGTERM/SIGINT.
  runtime::ShutdownSignals block_shutdown_signals;
  auto options =
      operator_cmd::ParseOperatorOptions(std::vector<std::string>(argv + 1, argv + argc));
  if (!options.ok()) {
    std::fprintf(stderr, "rdmastack-operator: %s\n", options.status().message().c_str());
    return 2;
  }
  if (options->show_help) {
    std::fputs(operator_cmd::kOperatorUsage, stdout);
    return 0;
  }
  if (options->show_version) {
    std::printf("rdmastack-operator %s\n", kVersion);
    return 0;
  }
  if (Status s = InitLogging(options->log_level, options->log_format); !s.ok()) {
    std::fprintf(stderr, "rdmastack-operator: %s\n", s.message().c_str());
    return 2;
  }
  if (!tls_buffer_mapping.ok()) spdlog::warn("{}", tls_buffer_mapping.message());
  return operator_cmd::Run(*options);
}
