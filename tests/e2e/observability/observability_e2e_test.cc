// The chart's monitoring against a real Prometheus: the chart is installed in-cluster (operator
// pods from the operator image on simulated nodes) with its ServiceMonitor and PrometheusRule; the
// real Prometheus Operator turns them into Prometheus' config and rule files, and a real Prometheus
// (host processes, tests/harness/prometheus/prometheus-stack.sh) scrapes the operator pods at their
// nodes' addresses with the ServiceMonitor's TLS, token and honorLabels. Faults are then made for
// real: an agent that stops reporting, and an upgrade whose new gateway cannot start on one node
// (the rollout halts, the node fails). Prometheus' /api/v1/alerts must show the matching alerts
// firing, and none of them once the faults are undone. Every query of the chart's Grafana
// dashboard must return data from this Prometheus.

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/e2e/common/chart_e2e_fixture.h"
#include "tests/e2e/common/port_holder.h"
#include "tests/e2e/observability/dashboard.h"
#include "tests/e2e/observability/prometheus_api.h"
#include "tests/harness/child_process.h"
#include "tests/harness/hub_flood.h"
#include "tests/harness/scope_exit.h"

namespace rdmastack::testing {
namespace {

using namespace std::chrono_literals;

constexpr char kBond0[] = "storage-cx6-ib-ipoib-bond0-el8-inbox";
// The scrape job of the chart's ServiceMonitor: the metrics Service's name.
constexpr char kJob[] = "rdmastack-operator-metrics";
constexpr char kMonitoringNamespace[] = "rdmastack-monitoring";

double Now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ObservabilityE2eTest : public ChartE2eFixture {
 protected:
  void TearDown() override {
    ChartE2eFixture::TearDown();
    // Prometheus and its operator stop; what they were given in the cluster goes with the
    // namespace (the CRDs stay, as ours do).
    if (stack_ != nullptr) {
      stack_->Signal(SIGTERM);
      (void)stack_->WaitExit(30s);
    }
    if (env_ != nullptr)
      env_->Kubectl(
          {"delete", "namespace", kMonitoringNamespace, "--ignore-not-found", "--wait=false"});
  }

  // The Prometheus Operator and Prometheus, once Prometheus answers.
  void StartPrometheus() {
    const uint16_t port = FreePortOn("127.0.0.1");
    stack_ = std::make_unique<ChildProcess>(
        "prometheus-stack",
        std::vector<std::string>{SourcePath("tests/harness/prometheus/prometheus-stack.sh"),
                                 "--state", ::testing::TempDir() + UniqueName("prometheus"),
                                 "--port", std::to_string(port), "--interval", "5s"});
    ASSERT_TRUE(stack_->WaitForOutput("prometheus-stack: ready at", 180s)) << stack_->Output();
    prometheus_ = std::make_unique<PrometheusApi>("http://127.0.0.1:" + std::to_string(port));
  }

  // Pending or firing alerts named `name` whose labels include `labels`; nullopt when Prometheus
  // did not answer.
  std::optional<std::vector<Alert>> AlertsNamed(
      const std::string& name, const std::map<std::string, std::string>& labels) const {
    auto all = prometheus_->Alerts();
    if (!all) return std::nullopt;
    std::vector<Alert> out;
    for (const Alert& a : *all) {
      bool match = a.name == name;
      for (const auto& [k, v] : labels) match = match && a.labels.count(k) && a.labels.at(k) == v;
      if (match) out.push_back(a);
    }
    return out;
  }
  bool Firing(const std::string& name, const std::map<std::string, std::string>& labels) const {
    const auto alerts = AlertsNamed(name, labels);
    return alerts && std::any_of(alerts->begin(), alerts->end(),
                                 [](const Alert& a) { return a.state == "firing"; });
  }
  // Neither pending nor firing, by Prometheus' own answer.
  bool Quiet(const std::string& name, const std::map<std::string, std::string>& labels) const {
    const auto alerts = AlertsNamed(name, labels);
    return alerts && alerts->empty();
  }
  // `expr` has at least one series now: the state an alert cleared for is there, not gone.
  bool Holds(const std::string& expr) const { return prometheus_->Query(expr).series > 0; }
  std::string AlertsNow() const {
    std::string error;
    const auto alerts = prometheus_->Alerts(&error);
    return alerts ? Describe(*alerts) : "  (Prometheus did not answer: " + error + ")\n";
  }

  // The agent container's main process on `node` (the node runtime runs it there).
  pid_t AgentPid(const std::string& node) const {
    return PidOfContainerId(
        Get({"get", "pods", "-n", kReleaseNamespace, "-l", "app.kubernetes.io/name=rdmastack-agent",
             "--field-selector", "spec.nodeName=" + node, "-o",
             "jsonpath={.items[0].status.containerStatuses[0].containerID}"}));
  }

  std::string UpgradePhase(const std::string& node) const {
    const std::string key = "upgrade\\.gwp\\.rdmastack\\.io/" + ns_->name() + "\\.kvcache";
    return Get({"get", "node", node, "-o", "jsonpath={.metadata.annotations." + key + "}"});
  }

  std::string What() const {
    return "alerts now:\n" + AlertsNow() + "prometheus-stack:\n" + stack_->Output() + Diagnostics();
  }

  std::unique_ptr<ChildProcess> stack_;
  std::unique_ptr<PrometheusApi> prometheus_;
};

TEST_F(ObservabilityE2eTest, AlertsFireAndClearAndEveryDashboardQueryAnswers) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  std::vector<std::string> storage;
  if (const std::string missing = NodesWithFixture(kBond0, 2, &storage); !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  // A GPU node the profile cannot use (its GPU and NIC on different sockets), for the dashboard's
  // ineligible-nodes panel.
  std::vector<std::string> far;
  if (const std::string missing = NodesWithFixture("gpu-client-cross-socket-sys", 1, &far);
      !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  const double started = Now();

  // Prometheus first: it installs the Prometheus Operator's CRDs, which the chart's monitors need.
  StartPrometheus();
  if (HasFatalFailure()) return;

  ns_ = std::make_unique<TestNamespace>(*env_, "observability");
  selector_label_ = "e2e.rdmastack.io/" + ns_->name();
  // The chart with its ServiceMonitor and PrometheusRule, short `for`s and scrapes, and an agent
  // silent for 15 s counted stale. extraArgs is a list: the harness' list plus the TTL.
  const std::string values = ::testing::TempDir() + UniqueName("observability-values") + ".yaml";
  {
    std::ofstream out(values);
    out << ReadFile(SourcePath("tests/harness/chart/simulated-nodes.yaml"))
        << "    - --agent-stale-ttl=15s\n"
        << "metrics:\n"
        << "  serviceMonitor: {enabled: true}\n"
        << "  scrape: {interval: 5s, scrapeTimeout: 4s}\n"
        << "  prometheusRule:\n"
        << "    enabled: true\n"
        << "    for: {upgradeHalted: 10s, upgradeNodeFailed: 10s, failingNodes: 10s,\n"
        << "          agentNotReporting: 10s, poolNotReady: 30s}\n";
  }
  Install({"-f", values, "--set", "tenancy.namespaces={" + ns_->name() + "}"});
  if (HasFatalFailure()) return;

  // Every replica is a target, and every scrape succeeds: TLS, the scraper's token (the operator
  // reviews it with the API server) and the job label the alerts name.
  std::vector<ScrapeTarget> targets;
  const bool up = Eventually(
      [&] {
        targets = prometheus_->Targets(kJob);
        if (targets.size() != OperatorPods().size()) return false;
        for (const ScrapeTarget& t : targets)
          if (t.health != "up") return false;
        return true;
      },
      90s);
  std::string seen;
  for (const ScrapeTarget& t : targets)
    seen += "  " + t.scrape_url + " " + t.health + " lastError: " + t.last_error + "\n";
  ASSERT_TRUE(up) << "targets of job " << kJob << ":\n" << seen << What();
  std::printf("scrape targets of %s:\n%s", kJob, seen.c_str());

  // A pool on two nodes, and a profile on the GPU nodes (the dashboard's profile panels).
  std::string pool = SeedPool(
      "    strategy: SideBySide\n    maxParallel: 2\n    validationTimeout: 15s\n"
      "    drainSeconds: 2\n    autoRollback: true\n");
  pool.replace(pool.find("SELECTOR"), 8, selector_label_);
  ns_->Apply(pool);
  ns_->Apply(ReadSample("clientprofile-gpudirect.yaml"));
  for (const std::string& n : storage)
    ASSERT_EQ(env_->Kubectl({"label", "node", n, selector_label_ + "=in"}).exit_code, 0);
  for (const char* object : {"gwp/kvcache", "cprof/kvcache-gpudirect"}) {
    CommandResult wait = env_->Kubectl(
        {"wait", "--for=condition=Ready", object, "-n", ns_->name(), "--timeout=300s"});
    ASSERT_EQ(wait.exit_code, 0) << object << ": " << wait.err << Diagnostics();
  }
  // Ready needs one serving gateway; the faults below need both nodes on the old track, or the
  // upgrade would start a node that never served it straight on the new one (nothing to halt).
  ASSERT_TRUE(
      Eventually([&] { return ReadyEndpointNodes("kvcache").size() == storage.size(); }, 120s))
      << Diagnostics();
  // The webhook's series: a pod that names the profile, admitted (server-side dry run).
  const std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: trainer\n  labels: "
      "{rdmastack.io/client-profile: kvcache-gpudirect}\nspec:\n  containers: [{name: app, image: "
      "rdmastack.invalid/host}]\n";
  EXPECT_EQ(
      env_->Kubectl({"create", "--dry-run=server", "-n", ns_->name(), "-f", "-"}, pod).exit_code,
      0);

  // The agent hub's refusals: a peer at the leader's hub with malformed Hellos (900 KiB node
  // names) and made-up tokens is refused and counted (rdmastack_agenthub_streams_refused_total).
  {
    HubFloodOptions o;
    o.host =
        Get({"get", "pod", LeaderPod(), "-n", kReleaseNamespace, "-o", "jsonpath={.status.podIP}"});
    o.port = 9443;
    o.ca_pem = Get({"get", "configmap", "rdmastack-agenthub-ca", "-n", kReleaseNamespace, "-o",
                    "jsonpath={.data.ca\\.crt}"});
    o.server_name = "rdmastack-agenthub." + std::string(kReleaseNamespace) + ".svc";
    o.node_names = {storage[0]};
    o.silent_sockets = 0;
    o.idle_channels = 0;
    o.hello_threads = 2;  // thread 0: the malformed Hellos, thread 1: the made-up tokens
    o.hello_interval = 500ms;
    HubFlood peer(o);
    peer.Start();
    std::this_thread::sleep_for(3s);
    peer.StopHellos();
    std::string codes;
    for (const auto& [code, n] : peer.HelloCodes())
      codes += " " + std::to_string(code) + ":" + std::to_string(n);
    for (const grpc::StatusCode refused :
         {grpc::StatusCode::INVALID_ARGUMENT, grpc::StatusCode::UNAUTHENTICATED})
      EXPECT_GT(peer.HelloCodes()[refused], 0)
          << o.host << " answered (status code: count)" << codes;
  }

  // A reconcile that fails: the operator's RoleBinding in the pool's namespace is gone while the
  // pool's Service must be made again. The error is counted by controller and reason
  // (rdmastack_reconcile_errors_total, the RdmastackReconcileErrors alert's series); the Service
  // is back once the binding is.
  {
    const std::string binding = "rdmastack-operator-tenant";
    ASSERT_EQ(env_->Kubectl({"delete", "rolebinding", binding, "-n", ns_->name()}).exit_code, 0);
    ScopeExit restore([&] {
      env_->Kubectl({"create", "rolebinding", binding, "-n", ns_->name(), "--role=" + binding,
                     "--serviceaccount=" + std::string(kReleaseNamespace) + ":rdmastack-operator"});
    });
    ASSERT_EQ(env_->Kubectl({"delete", "service", "kvcache-gateway", "-n", ns_->name()}).exit_code,
              0);
    const std::string errors =
        R"(rdmastack_reconcile_errors_total{controller="gatewaypool",reason="PermissionDenied"})";
    EXPECT_TRUE(Eventually([&] { return prometheus_->Query(errors).series > 0; }, 60s))
        << errors << "\n"
        << What();
    restore.Now();
    EXPECT_TRUE(Eventually(
        [&] {
          return !Get({"get", "service", "kvcache-gateway", "-n", ns_->name()}).empty();
        },
        60s))
        << Diagnostics();
  }

  // 1. An agent that stops reporting (its process frozen): RdmastackAgentNotReporting fires for
  // its node, and clears once it reports again.
  const std::string quiet = storage[1];
  EXPECT_TRUE(Quiet("RdmastackAgentNotReporting", {{"node", quiet}})) << What();
  const pid_t agent = AgentPid(quiet);
  ASSERT_GT(agent, 0) << quiet << Diagnostics();
  ASSERT_EQ(kill(agent, SIGSTOP), 0);
  ScopeExit thaw([&] { kill(agent, SIGCONT); });
  const auto frozen = std::chrono::steady_clock::now();
  const bool stale_fired = Eventually(
      [&] {
        return Firing("RdmastackAgentNotReporting", {{"node", quiet}});
      },
      120s);
  EXPECT_TRUE(stale_fired) << What();
  if (stale_fired)
    std::printf("RdmastackAgentNotReporting{node=%s} firing %llds after the agent stopped\n",
                quiet.c_str(),
                static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(
                                           std::chrono::steady_clock::now() - frozen)
                                           .count()));
  thaw.Now();
  // Cleared because the agent reports again, not because its series went away.
  EXPECT_TRUE(Eventually(
      [&] {
        return Quiet("RdmastackAgentNotReporting", {{"node", quiet}}) &&
               Holds(R"(rdmastack_node_condition{node=")" + quiet +
                     R"(",type="Reporting",status="True"} == 1)");
      },
      90s))
      << What();

  // 2. A node whose new gateway cannot start (something else holds the 2.x port there): the
  // rollout halts, the node fails. Three alerts fire for the pool.
  const std::string bad = storage[0];
  PortHolder port_7072(nodes_.at(bad).netns, 7072);
  std::this_thread::sleep_for(1s);
  ASSERT_EQ(
      env_->Kubectl({"patch", "gwp", "kvcache", "-n", ns_->name(), "--type=merge", "-p", kToV2})
          .exit_code,
      0);
  const std::map<std::string, std::string> of_pool = {{"namespace", ns_->name()},
                                                      {"gatewaypool", "kvcache"}};
  std::map<std::string, std::string> halted = of_pool;
  halted["reason"] = "RolloutHalted";
  std::map<std::string, std::string> failing = of_pool;
  failing["reason"] = "NewGatewayNotReady";
  const std::vector<std::pair<std::string, std::map<std::string, std::string>>> upgrade_alerts = {
      {"RdmastackGatewayPoolUpgradeHalted", halted},
      {"RdmastackGatewayPoolUpgradeNodeFailed", of_pool},
      {"RdmastackGatewayPoolFailingNodes", failing}};
  EXPECT_TRUE(Eventually(
      [&] {
        for (const auto& [name, labels] : upgrade_alerts)
          if (!Firing(name, labels)) return false;
        return true;
      },
      180s))
      << "the node's phase: " << UpgradePhase(bad) << "\n"
      << What();
  std::printf("firing during the halted upgrade:\n%s", AlertsNow().c_str());

  // The simulated ports carry traffic (the runtime moves their counters as each fixture's
  // counters.txt says): from sysfs through the agent's PortCounters, the hub and the operator's
  // /metrics, Prometheus sees bytes flowing on the storage nodes' ports.
  const std::string flowing = R"(rate(rdmastack_rdma_port_transmit_bytes_total{node=~")" +
                              storage[0] + "|" + storage[1] + R"("}[5m]) > 0)";
  EXPECT_TRUE(Eventually([&] { return Holds(flowing); }, 150s)) << flowing << "\n" << What();

  // The dashboard, now that every kind of series has been there: each panel's query, with the
  // dashboard's variables as Grafana fills them in ("All"), returns data over the test's time.
  auto dashboard =
      ParseDashboard(ReadFile(SourcePath("charts/rdmastack/monitoring/dashboard.json")));
  ASSERT_TRUE(dashboard.ok()) << dashboard.status().message();
  std::map<std::string, std::string> vars = {
      {"__rate_interval", "1m"}, {"__interval", "15s"}, {"__range", "1h"}};
  for (const DashboardVariable& v : dashboard->variables) {
    if (v.type == "datasource") continue;
    ASSERT_EQ(v.type, "query") << v.name << ": only query variables are filled in here";
    auto lv = ParseLabelValues(SubstituteVariables(v.query, vars));
    ASSERT_TRUE(lv.ok()) << v.name << ": " << lv.status().message();
    const std::vector<std::string> values = prometheus_->LabelValues(lv->second, lv->first);
    EXPECT_FALSE(values.empty()) << "variable " << v.name << " (" << v.query << ") has no values";
    std::string regex;
    for (const std::string& value : values) regex += (regex.empty() ? "" : "|") + value;
    vars[v.name] = v.include_all && !v.all_value.empty() ? v.all_value : regex;
  }
  std::string empty;
  size_t answered = 0;
  for (const PanelQuery& q : dashboard->queries) {
    const std::string expr = SubstituteVariables(q.expr, vars);
    const QueryResult r = prometheus_->QueryRange(expr, started, Now(), 5);
    if (!r.ok || r.series == 0)
      empty += "  " + q.panel + " [" + q.ref_id + "]: " + expr + " -> " +
               (r.ok ? "no data" : r.error) + "\n";
    else
      ++answered;
  }
  EXPECT_EQ(empty, "") << "dashboard queries without data:\n" << empty;
  std::printf("dashboard: %zu of %zu queries returned data\n", answered, dashboard->queries.size());

  // Undone: the port is free again and the failed node's state is cleared (the runbook's step),
  // so the operator starts it again and the upgrade finishes; every alert of the pool clears.
  port_7072.Release();
  ASSERT_EQ(env_->Kubectl({"annotate", "node", bad,
                           "upgrade.gwp.rdmastack.io/" + ns_->name() + ".kvcache-"})
                .exit_code,
            0);
  // Cleared because the upgrade is over, no node fails and every node serves 2.x, not because the
  // series went away.
  const std::string pool_labels = "namespace=\"" + ns_->name() + "\",gatewaypool=\"kvcache\"";
  EXPECT_TRUE(Eventually(
      [&] {
        for (const auto& [name, labels] : upgrade_alerts)
          if (!Quiet(name, of_pool)) return false;
        return Holds("rdmastack_gatewaypool_upgrade_in_progress{" + pool_labels + "} == 0") &&
               Holds("rdmastack_gatewaypool_nodes{" + pool_labels + ",state=\"failed\"} == 0") &&
               Holds("rdmastack_gatewaypool_endpoints{" + pool_labels +
                     ",library_version=\"2.0.0.109\"} == " + std::to_string(storage.size()));
      },
      240s))
      << "the node's phase: " << UpgradePhase(bad) << "\n"
      << What();
  EXPECT_TRUE(Eventually(
      [&] {
        return Get({"get", "gwp", "kvcache", "-n", ns_->name(), "-o",
                    "jsonpath={.status.conditions[?(@.type==\"Upgrading\")].reason}"}) ==
               "UpToDate";
      },
      60s))
      << Diagnostics();
  std::printf("observability e2e: %.0f s\n", Now() - started);

  // The run's series, for docs/img (tests/e2e/observability/plot_series.py), when asked for.
  if (const char* out = std::getenv("RDMASTACK_OBSERVABILITY_OUT"); out != nullptr) {
    const std::string pool_sel = "{namespace=\"" + ns_->name() + "\",gatewaypool=\"kvcache\"}";
    const std::vector<std::pair<std::string, std::string>> series = {
        {"Upgrade nodes per phase",
         "max by (phase) (rdmastack_gatewaypool_upgrade_nodes" + pool_sel + ")"},
        {"Pool nodes by state", "max by (state) (rdmastack_gatewaypool_nodes" + pool_sel + ")"},
        {"Endpoints per library",
         "max by (library_version) (rdmastack_gatewaypool_endpoints" + pool_sel + ")"},
        {"Firing alerts", "max by (alertname) (ALERTS{alertstate=\"firing\"})"},
        {"Operator replicas scraped", "sum(up{job=\"" + std::string(kJob) + "\"})"}};
    std::ofstream json(std::string(out) + "/series.json");
    json << "[";
    for (size_t i = 0; i < series.size(); ++i) {
      const QueryResult r = prometheus_->QueryRange(series[i].second, started, Now(), 2);
      EXPECT_TRUE(r.ok) << series[i].second << ": " << r.error;
      json << (i ? ",\n" : "\n") << "{\"title\": \"" << series[i].first
           << "\", \"answer\": " << r.body << "}";
    }
    json << "\n]\n";
    std::printf("series: %s/series.json\n", out);
  }
}

}  // namespace
}  // namespace rdmastack::testing
