#include "cmd/rdmastack-operator/operator_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/version.h"

namespace rdmastack::operator_cmd {
namespace {

using namespace std::chrono_literals;

TEST(OperatorOptionsTest, DefaultsAreKubebuilders) {
  auto o = ParseOperatorOptions({});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_FALSE(o->leader_elect);
  EXPECT_EQ(o->metrics_bind_address, ":8443");
  EXPECT_TRUE(o->metrics_secure);
  EXPECT_EQ(o->health_probe_bind_address, ":8081");
  EXPECT_EQ(o->agent_bind_address, ":9443");
  EXPECT_EQ(o->lease_duration, 15s);
  EXPECT_EQ(o->renew_deadline, 10s);
  EXPECT_EQ(o->retry_period, 2s);
  EXPECT_EQ(o->log_format, LogFormat::kText);
}

TEST(OperatorOptionsTest, BothValueSpellingsAndBareBooleans) {
  auto o = ParseOperatorOptions(
      {"--kubeconfig", "/k", "--leader-elect", "--metrics-secure=false",
       "--leader-election-id=my-lock", "--log-format", "json", "--metrics-bind-address=0",
       "--health-probe-bind-address", "127.0.0.1:0", "--leader-election-lease-duration=4s",
       "--leader-election-renew-deadline=3s", "--leader-election-retry-period=500ms"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->kubeconfig, "/k");
  EXPECT_TRUE(o->leader_elect);
  EXPECT_FALSE(o->metrics_secure);
  EXPECT_EQ(o->leader_election_id, "my-lock");
  EXPECT_EQ(o->log_format, LogFormat::kJson);
  EXPECT_EQ(o->metrics_bind_address, "0");
  EXPECT_EQ(o->health_probe_bind_address, "127.0.0.1:0");
  EXPECT_EQ(o->lease_duration, 4s);
  EXPECT_EQ(o->renew_deadline, 3s);
  EXPECT_EQ(o->retry_period, 500ms);
}

TEST(OperatorOptionsTest, AgentFlagsRepeatAndDefault) {
  auto defaults = ParseOperatorOptions({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->agent_image, "");
  EXPECT_EQ(defaults->agent_stale_ttl, 60s);
  EXPECT_EQ(defaults->node_label_grace, 5min);
  auto o = ParseOperatorOptions({"--agent-image=registry.local/agent:1", "--agent-namespace", "ops",
                                 "--agent-hub-address=198.18.130.1:9443", "--agent-pod-label",
                                 "rdmastack.io/simulate=run", "--agent-pod-label=team=storage",
                                 "--agent-arg=--probes-file", "--agent-arg",
                                 "/host/etc/rdmastack-fixture/probes.txt", "--agent-stale-ttl=20s",
                                 "--node-label-grace=30s"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->agent_image, "registry.local/agent:1");
  EXPECT_EQ(o->agent_namespace, "ops");
  EXPECT_EQ(o->agent_hub_address, "198.18.130.1:9443");
  EXPECT_EQ(o->agent_pod_labels, (std::map<std::string, std::string>{
                                     {"rdmastack.io/simulate", "run"}, {"team", "storage"}}));
  EXPECT_EQ(o->agent_args,
            (std::vector<std::string>{"--probes-file", "/host/etc/rdmastack-fixture/probes.txt"}));
  EXPECT_EQ(o->agent_stale_ttl, 20s);
  EXPECT_EQ(o->node_label_grace, 30s);
}

TEST(OperatorOptionsTest, NodeControllerOptionsDefaultToTheOperatorsVersionAndNamespace) {
  auto o = ParseOperatorOptions({"--agent-bind-address=:7443"});
  ASSERT_TRUE(o.ok());
  auto n = NodeControllerOptionsFrom(*o, "ops");
  EXPECT_EQ(n.agent.image, std::string("ghcr.io/rdmastack/agent:") + kVersion);
  EXPECT_EQ(n.agent.namespace_, "ops");
  EXPECT_EQ(n.agent.hub_address, "rdmastack-agenthub.ops.svc:7443");
  EXPECT_EQ(n.label_grace, 5min);
  EXPECT_EQ(n.dra_driver, "");  // no ResourceSlices unless asked
  o = ParseOperatorOptions({"--agent-namespace=x", "--agent-hub-address=10.0.0.1:1",
                            "--node-label-grace=1m", "--dra-resource-slices"});
  ASSERT_TRUE(o.ok());
  n = NodeControllerOptionsFrom(*o, "ops");
  EXPECT_EQ(n.agent.namespace_, "x");
  EXPECT_EQ(n.agent.hub_address, "10.0.0.1:1");
  EXPECT_EQ(n.label_grace, 1min);
  EXPECT_EQ(n.dra_driver, "rdma.rdmastack.io");
}

// The hub accepts exactly the agents the DaemonSet runs, and its certificate names the host they
// dial: an agent pointed at an address outside the certificate would fail verification.
// The chart's tenancy.clientLibraryBudget: quantities, rendered into every client DaemonSet.
TEST(OperatorOptionsTest, ClientLibraryBudget) {
  auto defaults = ParseOperatorOptions({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(ClientProfileOptionsFrom(*defaults).render.library_max_file_bytes, 0);
  auto o = ParseOperatorOptions(
      {"--client-library-max-file-size=64Mi", "--client-library-max-size", "128Mi"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  const auto client = ClientProfileOptionsFrom(*o);
  EXPECT_EQ(client.render.library_max_file_bytes, int64_t{64} << 20);
  EXPECT_EQ(client.render.library_max_bytes, int64_t{128} << 20);
  for (const char* bad : {"0", "-1", "big"}) {
    EXPECT_FALSE(ParseOperatorOptions({std::string("--client-library-max-size=") + bad}).ok())
        << bad;
  }
}

// The chart's operator.gatewayAnswerMaxSize: what the S3 user provisioning reads of one answer.
TEST(OperatorOptionsTest, GatewayAnswerMaxSize) {
  auto defaults = ParseOperatorOptions({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(ClientProfileOptionsFrom(*defaults).gateway_answer_max_bytes, uint64_t{4} << 20);
  auto o = ParseOperatorOptions({"--gateway-answer-max-size=16Mi"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(ClientProfileOptionsFrom(*o).gateway_answer_max_bytes, uint64_t{16} << 20);
  for (const char* bad : {"0", "-1", "big"}) {
    EXPECT_FALSE(ParseOperatorOptions({std::string("--gateway-answer-max-size=") + bad}).ok())
        << bad;
  }
}

TEST(OperatorOptionsTest, AgentHubAddressLimits) {
  auto defaults = ParseOperatorOptions({});
  ASSERT_TRUE(defaults.ok());
  auto h = AgentHubOptionsFrom(*defaults, NodeControllerOptionsFrom(*defaults, "ops"));
  EXPECT_EQ(h.streams.per_address.max_pending, 4);
  EXPECT_EQ(h.streams.per_address.max_failures_per_minute, 10);
  auto o = ParseOperatorOptions(
      {"--agent-hub-pending-per-address=0", "--agent-hub-failures-per-minute", "25"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  h = AgentHubOptionsFrom(*o, NodeControllerOptionsFrom(*o, "ops"));
  EXPECT_EQ(h.streams.per_address.max_pending, 0);
  EXPECT_EQ(h.streams.per_address.max_failures_per_minute, 25);
  for (const char* bad : {"-1", "4x", "", "2000000"}) {
    auto r = ParseOperatorOptions({std::string("--agent-hub-pending-per-address=") + bad});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--agent-hub-pending-per-address must be a whole number"),
              std::string::npos)
        << r.status().message();
  }
}

// Every listener's bounds: the defaults of docs/operations.md "Listeners", each flag reaching the
// server it names, and limits that are no limits refused.
TEST(OperatorOptionsTest, ListenerLimitsAndDeadlines) {
  auto defaults = ParseOperatorOptions({});
  ASSERT_TRUE(defaults.ok());
  runtime::ManagerOptions m;
  ApplyListenerOptions(*defaults, &m);
  EXPECT_EQ(m.health_probe_connections.max_connections, 256u);
  EXPECT_EQ(m.health_probe_connections.max_connections_per_address, 8u);
  EXPECT_EQ(m.health_probe_deadlines.header, 5s);
  EXPECT_EQ(m.health_probe_deadlines.idle, 30s);
  EXPECT_EQ(m.metrics.connections.max_connections, 64u);
  EXPECT_EQ(m.metrics.connections.max_connections_per_address, 8u);
  auto nodes = NodeControllerOptionsFrom(*defaults, "ops");
  auto hub = AgentHubOptionsFrom(*defaults, nodes);
  EXPECT_EQ(hub.connections.max_connections, 10240u);
  EXPECT_EQ(hub.connections.max_connections_per_address, 8u);
  EXPECT_EQ(hub.memory_quota_bytes, 256u << 20);
  EXPECT_EQ(hub.streams.hello_timeout, 10s);
  auto webhook = WebhookOptionsFrom(*defaults, "ops");
  EXPECT_EQ(webhook.connections.max_connections, 32u);
  EXPECT_EQ(webhook.connections.max_connections_per_address, 8u);
  EXPECT_EQ(webhook.deadlines.header, 5s);

  auto o = ParseOperatorOptions(
      {"--health-probe-max-connections=100", "--health-probe-max-connections-per-address=4",
       "--metrics-max-connections=10", "--metrics-max-connections-per-address=0",
       "--webhook-max-connections=20", "--webhook-max-connections-per-address=5",
       "--agent-hub-max-connections=9000", "--agent-hub-max-connections-per-address=0",
       "--agent-hub-memory-quota=64Mi", "--agent-hub-hello-timeout=3s", "--http-header-timeout=2s",
       "--http-idle-timeout=1m"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  ApplyListenerOptions(*o, &m);
  EXPECT_EQ(m.health_probe_connections.max_connections, 100u);
  EXPECT_EQ(m.health_probe_connections.max_connections_per_address, 4u);
  EXPECT_EQ(m.health_probe_deadlines.header, 2s);
  EXPECT_EQ(m.health_probe_deadlines.idle, 60s);
  EXPECT_EQ(m.metrics.connections.max_connections, 10u);
  EXPECT_EQ(m.metrics.connections.max_connections_per_address, 0u);
  EXPECT_EQ(m.metrics.deadlines.header, 2s);
  hub = AgentHubOptionsFrom(*o, NodeControllerOptionsFrom(*o, "ops"));
  EXPECT_EQ(hub.connections.max_connections, 9000u);
  EXPECT_EQ(hub.connections.max_connections_per_address, 0u);
  EXPECT_EQ(hub.memory_quota_bytes, 64u << 20);
  EXPECT_EQ(hub.streams.hello_timeout, 3s);
  webhook = WebhookOptionsFrom(*o, "ops");
  EXPECT_EQ(webhook.connections.max_connections, 20u);
  EXPECT_EQ(webhook.connections.max_connections_per_address, 5u);
  EXPECT_EQ(webhook.deadlines.idle, 60s);

  for (const char* bad : {"--health-probe-max-connections=0", "--agent-hub-max-connections=0",
                          "--webhook-max-connections=-1", "--metrics-max-connections-per-address=x",
                          "--agent-hub-max-connections-per-address=2000000",
                          "--http-header-timeout=0s", "--agent-hub-memory-quota=1Mi"}) {
    auto r = ParseOperatorOptions({bad});
    ASSERT_FALSE(r.ok()) << bad;
    const std::string flag = std::string(bad).substr(0, std::string(bad).find('='));
    EXPECT_NE(r.status().message().find(flag), std::string::npos) << r.status().message();
  }
}

TEST(OperatorOptionsTest, AgentHubOptionsMatchTheAgentDaemonSet) {
  auto o = ParseOperatorOptions({"--agent-bind-address=:7443", "--agent-namespace=agents"});
  ASSERT_TRUE(o.ok());
  auto n = NodeControllerOptionsFrom(*o, "ops");
  auto h = AgentHubOptionsFrom(*o, n);
  EXPECT_EQ(h.listen_address, ":7443");
  EXPECT_EQ(h.policy.service_account_namespace, "agents");
  EXPECT_EQ(h.policy.service_account_name, "rdmastack-agent");
  EXPECT_EQ(h.certificates.namespace_, "agents");
  EXPECT_EQ(h.certificates.ca_config_map, "rdmastack-agenthub-ca");
  EXPECT_THAT(h.certificates.hosts,
              ::testing::ElementsAre("rdmastack-agenthub.agents.svc", "rdmastack-agenthub",
                                     "rdmastack-agenthub.agents",
                                     "rdmastack-agenthub.agents.svc.cluster.local"));
  o = ParseOperatorOptions({"--agent-hub-address=198.18.50.1:9443"});
  ASSERT_TRUE(o.ok());
  h = AgentHubOptionsFrom(*o, NodeControllerOptionsFrom(*o, "ops"));
  EXPECT_EQ(h.certificates.hosts.front(), "198.18.50.1");
  EXPECT_TRUE(ValidateAgentHubOptions(h).ok());
  // 90 days, checked every minute by default; a short validity is checked often enough to renew
  // it at 2/3 of its life.
  EXPECT_EQ(h.certificates.serving_validity, std::chrono::hours(24 * 90));
  EXPECT_EQ(h.certificates.check_interval, 1min);
  o = ParseOperatorOptions({"--agent-hub-cert-validity=30s"});
  ASSERT_TRUE(o.ok());
  h = AgentHubOptionsFrom(*o, NodeControllerOptionsFrom(*o, "ops"));
  EXPECT_EQ(h.certificates.serving_validity, 30s);
  EXPECT_EQ(h.certificates.check_interval, 5s);
}

// Every bad flag or value is one line that names the flag.
TEST(OperatorOptionsTest, BadInputNamesTheFlag) {
  struct Case {
    std::vector<std::string> args;
    const char* names;
  };
  const Case cases[] = {
      {{"--no-such-flag"}, "--no-such-flag"},
      {{"--log-format", "xml"}, "--log-format"},
      {{"--log-level=loud"}, "--log-level"},
      {{"--leader-elect=maybe"}, "--leader-elect"},
      {{"--metrics-bind-address", "localhost"}, "--metrics-bind-address"},
      {{"--agent-bind-address=0"}, "--agent-bind-address"},
      {{"--leader-election-lease-duration", "fast"}, "--leader-election-lease-duration"},
      {{"--leader-election-retry-period=0s"}, "--leader-election-retry-period"},
      {{"--leader-election-lease-duration=5s"}, "--leader-election-renew-deadline"},
      {{"--leader-election-lease-duration=800ms", "--leader-election-renew-deadline=500ms",
        "--leader-election-retry-period=100ms"},
       "at least 1s"},
      {{"--leader-election-retry-period=9s"}, "--leader-election-retry-period"},
      {{"--allow-image=registry.example.com"}, "--allow-image: image prefix"},
      {{"--tenant-namespace=Team_A"}, "--tenant-namespace: namespace 'Team_A' is not a DNS label"},
      {{"--allow-backend-path=team-a=/data/../etc"}, "--allow-backend-path"},
      {{"--kubeconfig"}, "--kubeconfig"},
      {{"--agent-pod-label", "novalue"}, "--agent-pod-label"},
      {{"--agent-pod-label=", "=x"}, "--agent-pod-label"},
      {{"--agent-stale-ttl=0s"}, "--agent-stale-ttl"},
      {{"--node-label-grace", "soon"}, "--node-label-grace"},
      {{"--agent-hub-cert-validity=0s"}, "--agent-hub-cert-validity"},
      {{"--agent-image="}, "--agent-image"},
      {{"--kubeconfig="}, "--kubeconfig"},
      {{"stray"}, "stray"},
  };
  for (const Case& c : cases) {
    auto o = ParseOperatorOptions(c.args);
    ASSERT_FALSE(o.ok()) << c.args[0];
    EXPECT_NE(o.status().message().find(c.names), std::string::npos) << o.status().message();
    EXPECT_EQ(o.status().message().find('\n'), std::string::npos) << o.status().message();
  }
}

TEST(OperatorOptionsTest, GatewayFlagsAndControllers) {
  auto o = ParseOperatorOptions(
      {"--gateway-pod-label=rdmastack.io/simulate=run",
       "--gateway-env=RDMASTACK_GW_IPS_FILE=/host/etc/rdmastack-fixture/ips.txt", "--gateway-env",
       "A=b=c", "--gateway-host-mount=/etc/rdmastack-fixture", "--gateway-rdma-resource=none",
       "--compatibility-configmap=rdmastack-system/compat", "--controllers=*,-gatewaypool"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  const auto g = GatewayPoolOptionsFrom(*o);
  EXPECT_EQ(g.render.pod_labels.at("rdmastack.io/simulate"), "run");
  ASSERT_EQ(g.render.extra_env.size(), 2u);
  EXPECT_EQ(g.render.extra_env[0].second, "/host/etc/rdmastack-fixture/ips.txt");
  EXPECT_EQ(g.render.extra_env[1], (std::pair<std::string, std::string>{"A", "b=c"}));
  EXPECT_EQ(g.render.host_mounts, std::vector<std::string>{"/etc/rdmastack-fixture"});
  EXPECT_EQ(g.render.rdma_resource, "");
  EXPECT_EQ(g.compatibility_configmap, "rdmastack-system/compat");
  EXPECT_FALSE(ControllerEnabled(*o, "gatewaypool"));

  auto defaults = ParseOperatorOptions({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_TRUE(ControllerEnabled(*defaults, "gatewaypool"));
  EXPECT_EQ(GatewayPoolOptionsFrom(*defaults).render.rdma_resource, "rdma/hca_shared_devices_a");
  EXPECT_TRUE(
      ControllerEnabled(*ParseOperatorOptions({"--controllers=gatewaypool"}), "gatewaypool"));

  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--controllers=*,-nodes"},
        std::vector<std::string>{"--compatibility-configmap=compat"},
        std::vector<std::string>{"--gateway-host-mount=relative"},
        std::vector<std::string>{"--gateway-env=NOEQUALS"}}) {
    auto r = ParseOperatorOptions(bad);
    ASSERT_FALSE(r.ok()) << bad[0];
    EXPECT_NE(r.status().message().find(bad[0].substr(0, bad[0].find('='))), std::string::npos)
        << r.status().message();
  }
}

TEST(OperatorOptionsTest, AgentTolerationsAndResourcesAreJson) {
  auto o = ParseOperatorOptions({R"(--agent-tolerations=[{"operator":"Exists"}])",
                                 R"(--agent-resources={"limits":{"memory":"1Gi"}})"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  auto node = NodeControllerOptionsFrom(*o, "ns");
  EXPECT_EQ(node.agent.extra_tolerations_json, R"([{"operator":"Exists"}])");
  EXPECT_EQ(node.agent.resources_json, R"({"limits":{"memory":"1Gi"}})");
  auto not_array = ParseOperatorOptions({R"(--agent-tolerations={"operator":"Exists"})"});
  ASSERT_FALSE(not_array.ok());
  EXPECT_NE(not_array.status().message().find("--agent-tolerations must be a JSON array"),
            std::string::npos)
      << not_array.status().message();
  auto not_json = ParseOperatorOptions({"--agent-resources=cpu: 1"});
  ASSERT_FALSE(not_json.ok());
  EXPECT_NE(not_json.status().message().find("--agent-resources must be a JSON object"),
            std::string::npos)
      << not_json.status().message();
}

TEST(OperatorOptionsTest, TenancyRulesReachThePoolAndProfileControllers) {
  auto o = ParseOperatorOptions({"--allow-image=nvcr.io/nvidia/", "--allow-image",
                                 "team-a=ghcr.io/team-a/", "--allow-backend-path=/lustre/s3",
                                 "--tenant-namespace=team-a", "--tenant-namespace", "team-b"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  const controllers::TenancyPolicy& pools = GatewayPoolOptionsFrom(*o).render.node_pods.tenancy;
  ASSERT_EQ(pools.images.size(), 2u);
  EXPECT_EQ(pools.images[1].namespace_, "team-a");
  EXPECT_EQ(pools.images[1].prefix, "ghcr.io/team-a/");
  ASSERT_EQ(pools.backend_paths.size(), 1u);
  EXPECT_EQ(ClientProfileOptionsFrom(*o).render.node_pods.tenancy.images.size(), 2u);
  EXPECT_EQ(pools.namespaces, (std::vector<std::string>{"team-a", "team-b"}));
  EXPECT_EQ(ClientProfileOptionsFrom(*o).render.node_pods.tenancy.namespaces, pools.namespaces);
}

TEST(OperatorOptionsTest, HostLimitsReachThePoolAndProfileControllers) {
  auto defaults = ParseOperatorOptions({});
  ASSERT_TRUE(defaults.ok());
  const controllers::TenancyPolicy& d = GatewayPoolOptionsFrom(*defaults).render.node_pods.tenancy;
  EXPECT_EQ(d.host_ports.min, 1024);
  EXPECT_EQ(d.host_ports.max, 65535);
  EXPECT_FALSE(d.allow_control_plane_tolerations);

  auto o =
      ParseOperatorOptions({"--host-port-range=7000-20000", "--allow-control-plane-tolerations"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  const controllers::TenancyPolicy& pools = GatewayPoolOptionsFrom(*o).render.node_pods.tenancy;
  EXPECT_EQ(pools.host_ports.min, 7000);
  EXPECT_EQ(pools.host_ports.max, 20000);
  EXPECT_TRUE(pools.allow_control_plane_tolerations);
  EXPECT_TRUE(
      ClientProfileOptionsFrom(*o).render.node_pods.tenancy.allow_control_plane_tolerations);

  auto bad = ParseOperatorOptions({"--host-port-range=80-70"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--host-port-range: host port range '80-70'"),
            std::string::npos)
      << bad.status().message();
}

// Every node pod (agent, gateway, client) gets the same pull secrets and priority class.
TEST(OperatorOptionsTest, NodePodPolicyReachesEveryNodePodRenderer) {
  auto o = ParseOperatorOptions({"--image-pull-secret=mirror", "--image-pull-secret", "ngc",
                                 "--node-priority-class=storage-critical"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  const std::vector<std::string> want = {"mirror", "ngc"};
  EXPECT_EQ(NodeControllerOptionsFrom(*o, "ns").agent.node_pods.image_pull_secrets, want);
  EXPECT_EQ(GatewayPoolOptionsFrom(*o).render.node_pods.image_pull_secrets, want);
  EXPECT_EQ(ClientProfileOptionsFrom(*o).render.node_pods.image_pull_secrets, want);
  EXPECT_EQ(ClientProfileOptionsFrom(*o).render.node_pods.priority_class_name, "storage-critical");

  auto defaults = ParseOperatorOptions({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(GatewayPoolOptionsFrom(*defaults).render.node_pods.priority_class_name,
            "system-node-critical");
  EXPECT_TRUE(GatewayPoolOptionsFrom(*defaults).render.node_pods.image_pull_secrets.empty());
  auto none = ParseOperatorOptions({"--node-priority-class=none"});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(NodeControllerOptionsFrom(*none, "ns").agent.node_pods.priority_class_name, "");
  EXPECT_FALSE(ParseOperatorOptions({"--image-pull-secret="}).ok());
}

TEST(OperatorOptionsTest, HelpAndVersion) {
  EXPECT_TRUE(ParseOperatorOptions({"--help"})->show_help);
  EXPECT_TRUE(ParseOperatorOptions({"-h"})->show_help);
  EXPECT_TRUE(ParseOperatorOptions({"--version"})->show_version);
  for (const char* flag : {"--kubeconfig", "--leader-elect", "--leader-election-namespace",
                           "--leader-election-id", "--metrics-bind-address", "--metrics-secure",
                           "--metrics-cert-dir", "--health-probe-bind-address",
                           "--agent-bind-address", "--log-level", "--log-format", "--version"}) {
    EXPECT_NE(std::string(kOperatorUsage).find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace rdmastack::operator_cmd
