// The install path end to end: charts/rdmastack installed with helm and its default values into the
// real control plane (plus tests/harness/chart/simulated-nodes.yaml, which hands the pods to the
// simulated nodes): the operator Deployment's two pods run from the operator image on simulated
// nodes under the chart's securityContext, with in-cluster config through the kubernetes Service,
// so every request goes through the API server's RBAC authorizer as the chart's ServiceAccount; the
// agents reach the hub by its Service name and the API server calls the webhook through its
// Service. The whole story runs under that identity (agents report, the seed pool and the
// GPU-direct profile go Ready, S3 answers, the library is upgraded under traffic without a failed
// request, metrics are scraped, everything is deleted again); then the audit log shows no 403 for
// the operator, and every permission `kubectl auth can-i --list` shows for it was used. Helm
// upgrade rolls the operator pods and changes what they render; helm uninstall leaves only what
// NOTES.txt says. A second test asks `kubectl auth can-i` of the default install (nothing outside
// the release namespace) and of the tenancy.clusterWide opt-in, and tries the pod writes the
// chart's admission policy refuses.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "base/version.h"
#include "tests/e2e/common/chart_e2e_fixture.h"
#include "tests/e2e/common/connection_holder.h"
#include "tests/e2e/common/pool_traffic.h"
#include "tests/harness/golden.h"
#include "tests/harness/prom_text.h"

namespace rdmastack::testing {
namespace {

using namespace std::chrono_literals;

constexpr char kOperatorUser[] = "system:serviceaccount:rdmastack-system:rdmastack-operator";
constexpr char kBond0[] = "storage-cx6-ib-ipoib-bond0-el8-inbox";

// One RBAC permission, as the audit log and `kubectl auth can-i --list` name it.
struct Permission {
  std::string group, resource, subresource, verb;
  auto operator<=>(const Permission&) const = default;
  std::string Name() const {
    return verb + " " + resource + (subresource.empty() ? "" : "/" + subresource) +
           (group.empty() ? "" : "." + group);
  }
};

// "daemonsets.apps", "gatewaypools.rdmastack.io/status" or "gatewaypools/status.rdmastack.io".
Permission ParseResource(std::string text) {
  Permission p;
  if (const size_t slash = text.find('/'); slash != std::string::npos) {
    size_t end = text.find('.', slash);
    p.subresource = text.substr(slash + 1, end == std::string::npos ? end : end - slash - 1);
    text.erase(slash, end == std::string::npos ? std::string::npos : end - slash);
  }
  const size_t dot = text.find('.');
  p.resource = text.substr(0, dot);
  if (dot != std::string::npos) p.group = text.substr(dot + 1);
  return p;
}

// The resource permissions of `kubectl auth can-i --list` output, less what every authenticated
// user has (system:basic-user's self reviews) and non-resource URLs. A line is
// "RESOURCE   [NON-RESOURCE URLS]   [RESOURCE NAMES]   [VERBS]".
std::set<Permission> ParseCanIList(const std::string& text) {
  std::set<Permission> out;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) {
    const size_t verbs_open = l.rfind('['), verbs_close = l.rfind(']');
    if (l.empty() || l[0] == ' ' || l[0] == '[' || verbs_open == std::string::npos ||
        verbs_close < verbs_open)
      continue;  // the header, non-resource URLs
    Permission base = ParseResource(l.substr(0, l.find(' ')));
    if (base.resource.rfind("selfsubject", 0) == 0) continue;
    std::istringstream verbs(l.substr(verbs_open + 1, verbs_close - verbs_open - 1));
    for (std::string v; verbs >> v;) {
      Permission p = base;
      p.verb = v;
      out.insert(p);
    }
  }
  return out;
}

// What a run changes in the plugin's output: the test's namespace, times ("2026-12-02T12:00:00Z")
// and ages ("5s", "3m"), and the column widths that follow them.
std::string MaskRun(const std::string& text, const std::string& ns) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    auto digits = [&](size_t at) {
      size_t n = 0;
      while (at + n < text.size() && std::isdigit(static_cast<unsigned char>(text[at + n]))) ++n;
      return n;
    };
    const bool word_start = i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]));
    if (text.compare(i, ns.size(), ns) == 0) {
      out += "NS";
      i += ns.size();
    } else if (word_start && digits(i) == 4 && text.size() > i + 20 && text[i + 4] == '-' &&
               text[i + 10] == 'T' && text[i + 19] == 'Z') {
      out += "TIME";
      i += 20;
    } else if (const size_t n = word_start ? digits(i) : 0; n > 0) {
      size_t unit = 0;
      for (const char* u : {"ms", "s", "m", "h", "d"}) {
        const size_t len = std::strlen(u);
        const size_t end = i + n + len;
        if (text.compare(i + n, len, u) == 0 &&
            (end == text.size() || !std::isalnum(static_cast<unsigned char>(text[end])))) {
          unit = len;
          break;
        }
      }
      out += unit > 0 ? "AGE" : text.substr(i, n);
      i += n + unit;
    } else if (text[i] == ' ' && i + 1 < text.size() && text[i + 1] == ' ') {
      out += "  ";
      while (i < text.size() && text[i] == ' ') ++i;
    } else {
      out += text[i++];
    }
  }
  return out;
}

class ChartE2eTest : public ChartE2eFixture {
 protected:
  std::string Scrape(const std::string& pod, const std::string& bearer) const {
    const std::string ip =
        Get({"get", "pod", pod, "-n", kReleaseNamespace, "-o", "jsonpath={.status.podIP}"});
    return RunCommand({"curl", "-sk", "-H", "Authorization: Bearer " + bearer,
                       "https://" + ip + ":8443/metrics"})
        .out;
  }

  // What a storage team alerts on (docs/operations.md "Metrics"), as the leader and the standby
  // serve it after the upgrade: status-derived series from each replica's own caches, agent
  // silence and the hub's certificate from the leader only, which alone serves the agents.
  void ExpectStorageTeamMetrics(const std::string& bearer,
                                const std::vector<std::string>& storage) const {
    const std::string leader = LeaderPod();
    std::string standby;
    for (const std::string& pod : OperatorPods()) {
      if (pod != leader) standby = pod;
    }
    ASSERT_FALSE(standby.empty()) << "the chart runs two operator replicas";
    const std::string leader_text = Scrape(leader, bearer);
    const auto on_leader = ParsePromText(leader_text);
    const auto on_standby = ParsePromText(Scrape(standby, bearer));
    const std::map<std::string, std::string> pool = {{"namespace", ns_->name()},
                                                     {"gatewaypool", "kvcache"}};
    auto with = [](std::map<std::string, std::string> labels,
                   std::initializer_list<std::pair<const std::string, std::string>> more) {
      labels.insert(more);
      return labels;
    };
    const double wall_now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    for (const auto* replica : {&on_leader, &on_standby}) {
      const std::string who = replica == &on_leader ? "leader" : "standby";
      EXPECT_EQ(SampleValue(*replica, "rdmastack_gatewaypool_condition",
                            with(pool, {{"type", "Ready"}, {"status", "True"}})),
                1)
          << who;
      EXPECT_EQ(SampleValue(*replica, "rdmastack_gatewaypool_condition_reason",
                            with(pool, {{"type", "Upgrading"}, {"reason", "UpToDate"}})),
                1)
          << who;
      EXPECT_EQ(
          SampleValue(*replica, "rdmastack_gatewaypool_nodes", with(pool, {{"state", "ready"}})),
          static_cast<double>(storage.size()))
          << who;
      EXPECT_EQ(SampleValue(*replica, "rdmastack_gatewaypool_upgrade_in_progress", pool), 0) << who;
      // After the upgrade every published endpoint serves the pool's (new) library.
      const std::string library = PoolField("kvcache", "{.status.library}");
      EXPECT_EQ(SampleValue(*replica, "rdmastack_gatewaypool_endpoints",
                            with(pool, {{"library_version", library}})),
                static_cast<double>(storage.size()))
          << who << " library " << library;
      for (const std::string& node : storage) {
        EXPECT_EQ(SampleValue(*replica, "rdmastack_gatewaypool_node_library_info",
                              with(pool, {{"node", node}, {"library_version", library}})),
                  1)
            << who << " " << node;
        EXPECT_EQ(SampleValue(*replica, "rdmastack_node_verdict",
                              {{"node", node}, {"role", "gateway"}, {"capable", "Yes"}}),
                  1)
            << who << " " << node;
        EXPECT_EQ(SampleValue(*replica, "rdmastack_node_condition",
                              {{"node", node}, {"type", "Reporting"}, {"status", "True"}}),
                  1)
            << who << " " << node;
      }
      EXPECT_EQ(SampleValue(*replica, "rdmastack_operator_build_info", {{"version", kVersion}}), 1)
          << who;
      for (const char* cert : {"metrics", "webhook"}) {
        EXPECT_GT(SampleValue(*replica, "rdmastack_certificate_expiry_timestamp_seconds",
                              {{"certificate", cert}})
                      .value_or(0),
                  wall_now + 86400)
            << who << " " << cert;
      }
    }
    // The profile's counts as its status has them.
    const std::string eligible = Get({"get", "cprof", "kvcache-gpudirect", "-n", ns_->name(), "-o",
                                      "jsonpath={.status.nodeCounts.eligible}"});
    EXPECT_EQ(SampleValue(on_leader, "rdmastack_clientprofile_nodes",
                          {{"namespace", ns_->name()},
                           {"clientprofile", "kvcache-gpudirect"},
                           {"state", "eligible"}}),
              std::stod(eligible.empty() ? "-1" : eligible));
    // Only the leader hears agents: their silence is measured there, and well inside the TTL.
    for (const std::string& node : storage) {
      const auto age =
          SampleValue(on_leader, "rdmastack_node_agent_report_age_seconds", {{"node", node}});
      ASSERT_TRUE(age.has_value()) << node << "\n" << leader_text;
      EXPECT_LT(*age, 60) << node;
    }
    EXPECT_TRUE(Samples(on_standby, "rdmastack_node_agent_report_age_seconds").empty());
    EXPECT_GT(SampleValue(on_leader, "rdmastack_certificate_expiry_timestamp_seconds",
                          {{"certificate", "agenthub"}})
                  .value_or(0),
              wall_now + 86400);
    EXPECT_GE(SampleValue(on_leader, "rdmastack_agenthub_connected_agents").value_or(0),
              static_cast<double>(storage.size()));
    // The injected pod earlier in the story was answered by one of the two replicas.
    EXPECT_GE(
        SampleValue(on_leader, "rdmastack_webhook_admission_duration_seconds_count").value_or(0) +
            SampleValue(on_standby, "rdmastack_webhook_admission_duration_seconds_count")
                .value_or(0),
        1);
    // The real promtool accepts the exposition.
    const char* promtool = std::getenv("RDMASTACK_PROMTOOL");
    ASSERT_NE(promtool, nullptr) << "eval \"$(scripts/cluster.sh env)\"";
    const std::string file = ::testing::TempDir() + "/operator-scrape.txt";
    { std::ofstream(file) << leader_text; }
    CommandResult check =
        RunCommand({"sh", "-c", std::string(promtool) + " check metrics < " + file});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  }

  // kubectl-rdmastack ARGS as the cluster admin; its output masked for a golden file.
  std::string Plugin(std::vector<std::string> args) const {
    args.insert(args.begin(),
                {BinaryDir() + "/bin/kubectl-rdmastack", "--kubeconfig", env_->kubeconfig});
    CommandResult r = RunCommand(args);
    return "exit " + std::to_string(r.exit_code) + "\n" + MaskRun(r.out + r.err, ns_->name());
  }

  // The seed pool (on `storage`, by this test's node label) and the GPU-direct profile applied in
  // the test's namespace go Ready.
  void LabelStorageAndAwaitReady(const std::vector<std::string>& storage) const {
    for (const std::string& n : storage)
      ASSERT_EQ(env_->Kubectl({"label", "node", n, selector_label_ + "=in"}).exit_code, 0);
    for (const char* object : {"gwp/kvcache", "cprof/kvcache-gpudirect"}) {
      CommandResult wait = env_->Kubectl(
          {"wait", "--for=condition=Ready", object, "-n", ns_->name(), "--timeout=300s"});
      ASSERT_EQ(wait.exit_code, 0) << object << ": " << wait.err << Diagnostics();
    }
  }

  // A pod naming the profile, created (server-side dry run) until the webhook has injected the
  // profile into it; what the API server answered last.
  bool AdmitsALabelledPod(std::chrono::seconds within, std::string* answer) const {
    const std::string pod =
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: trainer\n  labels: "
        "{rdmastack.io/client-profile: kvcache-gpudirect}\nspec:\n  containers: [{name: app, "
        "image: rdmastack.invalid/host}]\n";
    return Eventually(
        [&] {
          CommandResult r = env_->Kubectl({"create", "--dry-run=server", "-n", ns_->name(), "-o",
                                           "jsonpath={.metadata.annotations}", "-f", "-"},
                                          pod);
          *answer = r.out + r.err;
          return answer->find("kvcache-gpudirect: sharedDevicePlugin") != std::string::npos;
        },
        within);
  }

  std::string DaemonSetField(const std::string& ns, const std::string& name,
                             const std::string& jsonpath) const {
    return Get({"get", "ds", name, "-n", ns, "--ignore-not-found", "-o", "jsonpath=" + jsonpath});
  }
};

TEST_F(ChartE2eTest, WholeStoryUnderTheChartsRbac) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  std::vector<std::string> storage;
  if (const std::string missing = NodesWithFixture(kBond0, 2, &storage); !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  std::vector<std::string> far;
  if (const std::string missing = NodesWithFixture("gpu-client-cross-socket-sys", 1, &far);
      !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  const auto started = std::chrono::system_clock::now();

  // The pool's and profile's namespace is the user's; agents live in the chart's namespace. The
  // operator serves only that namespace (tenancy.namespaces): its Secrets and writes are granted
  // there by a Role, not cluster-wide.
  ns_ = std::make_unique<TestNamespace>(*env_, "chart");
  selector_label_ = "e2e.rdmastack.io/" + ns_->name();
  TestNamespace unserved(*env_, "unserved");

  // helm install: CRDs are there already (helm leaves existing ones alone), the rest is new.
  Install({"--set", "tenancy.namespaces={" + ns_->name() + "}"});
  if (HasFatalFailure()) return;
  EXPECT_NE(notes_.find("kubectl rdmastack status"), std::string::npos) << notes_;
  // The Deployment's pods run the operator image as its securityContext says, and found the API
  // server through the kubernetes Service.
  const std::vector<std::string> pods = OperatorPods();
  ASSERT_EQ(pods.size(), 2u) << Get({"get", "pods", "-n", kReleaseNamespace, "-o", "wide"});
  EXPECT_EQ(Get({"get", "pod", pods[0], "-n", kReleaseNamespace, "-o",
                 "jsonpath={.status.containerStatuses[0].image}"}),
            "ghcr.io/rdmastack/operator:" + std::string(kVersion));
  EXPECT_NE(OperatorLog().find("against https://10.96.0.1:443, config: in-cluster"),
            std::string::npos)
      << OperatorLog();
  // The agent hub's Service sends agents to the leader alone, the one replica that listens: the
  // leader labels its pod, and the Service's ready endpoints are that pod's address.
  const auto hub_service_on_leader = [&] {
    const std::string ip =
        Get({"get", "pod", LeaderPod(), "-n", kReleaseNamespace, "-o", "jsonpath={.status.podIP}"});
    return !ip.empty() &&
           Get({"get", "endpointslices", "-n", kReleaseNamespace, "-l",
                "kubernetes.io/service-name=rdmastack-agenthub", "-o",
                "jsonpath={.items[*].endpoints[?(@.conditions.ready==true)].addresses[0]}"}) == ip;
  };
  const auto hub_service = [&] {
    return Get({"get", "endpointslices,pods", "-n", kReleaseNamespace, "-o", "wide",
                "--show-labels"}) +
           OperatorLog();
  };
  EXPECT_TRUE(Eventually(hub_service_on_leader, 60s)) << hub_service();
  // The chart's PodDisruptionBudget, as kube-controller-manager's disruption controller counts
  // it: both replicas healthy, one may go. A drain's eviction of one replica is admitted
  // (server-side dry run, so the leader stays).
  EXPECT_TRUE(Eventually(
      [&] {
        return Get({"get", "pdb", "rdmastack-operator", "-n", kReleaseNamespace, "-o",
                    "jsonpath={.status.currentHealthy}/{.status.disruptionsAllowed}"}) == "2/1";
      },
      60s))
      << Get({"get", "pdb", "-n", kReleaseNamespace, "-o", "yaml"});
  const std::string eviction =
      "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{"
      "\"name\":\"" +
      pods[1] + "\",\"namespace\":\"" + std::string(kReleaseNamespace) +
      "\"},\"deleteOptions\":{\"dryRun\":[\"All\"]}}";
  CommandResult evict = env_->Kubectl(
      {"create", "--raw",
       "/api/v1/namespaces/" + std::string(kReleaseNamespace) + "/pods/" + pods[1] + "/eviction",
       "-f", "-"},
      eviction);
  EXPECT_EQ(evict.exit_code, 0) << evict.out << evict.err;

  // The leader Lease deleted by mistake: its holder makes it again at its next renewal and leads
  // on (the Role may create it; the admission policy holds creates to that name).
  const std::string leader_before =
      Get({"get", "lease", "rdmastack-operator", "-n", kReleaseNamespace, "-o",
           "jsonpath={.spec.holderIdentity}"});
  CommandResult gone =
      env_->Kubectl({"delete", "lease", "rdmastack-operator", "-n", kReleaseNamespace});
  EXPECT_EQ(gone.exit_code, 0) << gone.err;
  EXPECT_TRUE(Eventually(
      [&] {
        return Get({"get", "lease", "rdmastack-operator", "-n", kReleaseNamespace,
                    "--ignore-not-found", "-o", "jsonpath={.spec.holderIdentity}"}) ==
               leader_before;
      },
      60s))
      << Get({"get", "lease", "-n", kReleaseNamespace, "-o", "yaml"}) << OperatorLog();

  std::string pool = SeedPool("    drainSeconds: 3\n    maxParallel: 1\n");
  std::string stray_pool = pool;
  pool.replace(pool.find("SELECTOR"), 8, selector_label_);
  ns_->Apply(pool);
  std::string profile = ReadSample("clientprofile-gpudirect.yaml");
  ns_->Apply(profile);
  // The same pool and profile where the operator does not serve: refused with the reason and a
  // Warning event, nothing made there; the operator could neither read a Secret nor list pods
  // there if it tried.
  stray_pool.replace(stray_pool.find("SELECTOR"), 8, selector_label_ + "-unserved");
  unserved.Apply(stray_pool);
  unserved.Apply(profile);
  for (const char* object : {"gwp/kvcache", "cprof/kvcache-gpudirect"}) {
    const std::string type = object[0] == 'g' ? "LibraryCompatible" : "Degraded";
    std::string reason;
    EXPECT_TRUE(Eventually(
        [&] {
          reason = Get({"get", object, "-n", unserved.name(), "-o",
                        "jsonpath={.status.conditions[?(@.type==\"" + type + "\")].reason}"});
          return reason == "NamespaceNotServed";
        },
        60s))
        << object << " " << type << ": " << reason << OperatorLog();
  }
  EXPECT_TRUE(Eventually(
      [&] {
        return Get({"get", "events", "-n", unserved.name(), "--field-selector",
                    "reason=NamespaceNotServed,type=Warning", "-o", "name"}) != "";
      },
      30s));
  EXPECT_EQ(Get({"get", "ds,svc,endpointslices,configmaps,secrets", "-n", unserved.name(), "-l",
                 "app.kubernetes.io/managed-by=rdmastack-operator", "-o", "name"}),
            "");
  for (const auto& [ns, want] : std::vector<std::pair<std::string, std::string>>{
           {unserved.name(), "no"}, {ns_->name(), "yes"}}) {
    for (const char* verb : {"get", "list", "create"}) {
      CommandResult can = env_->Kubectl(
          {"auth", "can-i", verb, "secrets", "-n", ns, "--as=" + std::string(kOperatorUser)});
      EXPECT_EQ(can.out, want + "\n") << verb << " secrets in " << ns;
    }
    for (const auto& [verb, resource] :
         std::vector<std::pair<std::string, std::string>>{{"delete", "pods"},
                                                          {"list", "pods"},
                                                          {"list", "daemonsets.apps"},
                                                          {"watch", "configmaps"}}) {
      CommandResult can = env_->Kubectl(
          {"auth", "can-i", verb, resource, "-n", ns, "--as=" + std::string(kOperatorUser)});
      EXPECT_EQ(can.out, want + "\n") << verb << " " << resource << " in " << ns;
    }
  }
  CommandResult everywhere = env_->Kubectl(
      {"auth", "can-i", "list", "pods", "--all-namespaces", "--as=" + std::string(kOperatorUser)});
  EXPECT_EQ(everywhere.out, "no\n") << "list pods in every namespace";
  // They go while the operator runs: its finalizers do not hold them (nothing to clean there).
  for (const char* kind : {"clientprofiles", "gatewaypools"}) {
    CommandResult gone =
        env_->Kubectl({"delete", kind, "--all", "-n", unserved.name(), "--timeout=60s"});
    EXPECT_EQ(gone.exit_code, 0) << kind << ": " << gone.err << OperatorLog();
  }
  ASSERT_NO_FATAL_FAILURE(LabelStorageAndAwaitReady(storage));
  // The profile's S3 user (the sample's s3User) is on every gateway the clients are given, and a
  // rotation replaces its keys in place (the Secret's update, under the chart's RBAC).
  std::string s3_user;
  EXPECT_TRUE(Eventually(
      [&] {
        s3_user = Get({"get", "cprof", "kvcache-gpudirect", "-n", ns_->name(), "-o",
                       "jsonpath={.status.s3User.gateways}/{.status.endpoints}"});
        const size_t slash = s3_user.find('/');
        return slash != std::string::npos && slash > 0 && s3_user.substr(0, slash) != "0" &&
               s3_user.substr(0, slash) == s3_user.substr(slash + 1);
      },
      60s))
      << "gateways with the user/endpoints: " << s3_user << Diagnostics();
  ASSERT_EQ(env_->Kubectl({"patch", "cprof", "kvcache-gpudirect", "-n", ns_->name(), "--type=merge",
                           "-p", R"({"spec":{"s3User":{"rotation":"2"}}})"})
                .exit_code,
            0);
  EXPECT_TRUE(Eventually(
      [&] {
        return !Get({"get", "cprof", "kvcache-gpudirect", "-n", ns_->name(), "-o",
                     "jsonpath={.status.s3User.rotatedAt}"})
                    .empty();
      },
      60s))
      << Diagnostics();
  // The webhook (its certificate Secret and caBundle kept by the operator under the chart's RBAC)
  // admits a pod that names the profile, with the profile injected.
  std::string injected;
  EXPECT_TRUE(AdmitsALabelledPod(60s, &injected)) << injected << OperatorLog();
  // The plugin, on one screen each: status, and why the cross-socket GPU node is not used. The
  // status screen is of the settled pool: both gateways Ready now, not only once (in one CI run a
  // gateway was not Ready again a minute after the pool went Ready; the cause was not found).
  EXPECT_TRUE(Eventually(
      [&] {
        return Get({"get", "gwp", "kvcache", "-n", ns_->name(), "-o",
                    "jsonpath={.status.nodeCounts.readyOfSelected} "
                    "{.status.conditions[?(@.type==\"Ready\")].status}"}) == "2/2 True";
      },
      60s))
      << Diagnostics();
  ExpectMatchesGolden("tests/e2e/chart/golden/status.txt", Plugin({"status", "-n", ns_->name()}));
  ExpectMatchesGolden("tests/e2e/chart/golden/why.txt", Plugin({"why", far[0]}));

  // The agents run in the chart's namespace, with the chart's agent settings.
  EXPECT_EQ(DaemonSetField(kReleaseNamespace, "rdmastack-agent",
                           "{.spec.template.spec.containers[0].resources.limits.memory}"),
            "64Mi");
  // Every node pod (agent, gateway, client) has the chart's priority class, which the API
  // server's Priority admission resolved to its value outside kube-system too.
  for (const auto& [ns, selector] : std::vector<std::pair<std::string, std::string>>{
           {kReleaseNamespace, "app.kubernetes.io/name=rdmastack-agent"},
           {ns_->name(), "gatewaypool.rdmastack.io/name=kvcache"},
           {ns_->name(), "clientprofile.rdmastack.io/name=kvcache-gpudirect"}}) {
    const std::string priorities =
        Get({"get", "pods", "-n", ns, "-l", selector, "-o",
             "jsonpath={range .items[*]}{.spec.priorityClassName}={.spec.priority} {end}"});
    EXPECT_FALSE(priorities.empty()) << selector;
    std::istringstream each(priorities);
    for (std::string p; each >> p;) EXPECT_EQ(p, "system-node-critical=2000001000") << selector;
  }

  // S3 through every ready endpoint, under traffic through the upgrade to 2.0.0.109.
  for (const SliceEndpoint& e : Endpoints("kvcache")) {
    auto made = Client(e).Send({.method = "PUT", .path = "/" + ns_->name() + "-" + e.node});
    ASSERT_TRUE(made.ok() && made->status == 200) << e.node;
  }
  Traffic traffic(*env_, ns_->name(), "kvcache");
  traffic.Start();
  std::this_thread::sleep_for(2s);
  ASSERT_EQ(
      env_->Kubectl({"patch", "gwp", "kvcache", "-n", ns_->name(), "--type=merge", "-p", kToV2})
          .exit_code,
      0);
  EXPECT_TRUE(Eventually(
      [&] {
        return PoolCondition("kvcache", "Upgrading", "reason") == "UpToDate" &&
               PoolField("kvcache", "{.status.library}") == "2.0.0.109";
      },
      300s))
      << Diagnostics();
  std::this_thread::sleep_for(2s);
  traffic.Stop();
  EXPECT_EQ(traffic.failures().size(), 0u)
      << traffic.failures().size() << " failed, first: " << traffic.failures().front();
  EXPECT_GT(traffic.requests(), 50);
  EXPECT_EQ(traffic.ports_used(), (std::set<int>{7071, 7072}));
  ExpectMatchesGolden("tests/e2e/chart/golden/upgrade.txt",
                      Plugin({"upgrade", "kvcache", "-n", ns_->name()}));

  // An in-place change of the gateway (its template): pods are replaced one at a time.
  const auto pod_uids = [&] {
    return Get({"get", "pods", "-n", ns_->name(), "-l", "gatewaypool.rdmastack.io/name=kvcache",
                "-o", "jsonpath={.items[*].metadata.uid}"});
  };
  const std::string before = pod_uids();
  ASSERT_EQ(env_->Kubectl({"patch", "gwp", "kvcache", "-n", ns_->name(), "--type=merge", "-p",
                           R"({"spec":{"rdma":{"bufferPool":{"bufferCount":2}}}})"})
                .exit_code,
            0);
  EXPECT_TRUE(Eventually(
      [&] {
        const std::string now = pod_uids();
        return PoolCondition("kvcache", "Upgrading", "reason") == "UpToDate" &&
               ReadyEndpointNodes("kvcache").size() == storage.size() && !before.empty() &&
               now.find(before.substr(0, 36)) == std::string::npos &&
               now.find(before.substr(before.size() - 36)) == std::string::npos;
      },
      180s))
      << Diagnostics();

  // Metrics: a scraper bound to the chart's metrics-reader ClusterRole gets them (the operator
  // checks its token with a TokenReview and a SubjectAccessReview); an identity without the
  // binding is refused, and so is a token the API server does not know.
  ns_->Apply(
      "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: scraper}\n---\n"
      "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: stranger}\n");
  env_->Kubectl({"create", "clusterrolebinding", "scraper-" + ns_->name(),
                 "--clusterrole=rdmastack-metrics-reader",
                 "--serviceaccount=" + ns_->name() + ":scraper"});
  const auto token = [&](const std::string& sa) {
    std::string t = RunCommand({env_->cluster_script, "token", ns_->name(), sa}).out;
    return t.substr(0, t.find_last_not_of("\n") + 1);
  };
  // Every replica serves metrics at its pod's address (on a simulated node: the node's).
  const std::string url =
      "https://" +
      Get({"get", "pod", LeaderPod(), "-n", kReleaseNamespace, "-o", "jsonpath={.status.podIP}"}) +
      ":8443/metrics";
  auto scrape = [&](const std::string& bearer) {
    return RunCommand({"curl", "-sk", "-o", "/dev/null", "-w", "%{http_code}", "-H",
                       "Authorization: Bearer " + bearer, url})
        .out;
  };
  EXPECT_EQ(scrape(token("scraper")), "200");
  EXPECT_EQ(scrape(token("stranger")), "403");
  EXPECT_EQ(scrape("not-a-token"), "401");
  ExpectStorageTeamMetrics(token("scraper"), storage);
  env_->Kubectl({"delete", "clusterrolebinding", "scraper-" + ns_->name()});

  // helm upgrade: a value the operator passes on to the agents it renders; the Deployment rolls
  // its pods and the new leader renders the agents with it.
  // So is a private registry's pull secret (image.pullSecrets), with the operator's own pods.
  CommandResult up = Helm({"upgrade", kRelease, SourcePath("charts/rdmastack"), "--reuse-values",
                           "--set", "agent.resources.limits.memory=96Mi", "--set",
                           "image.pullSecrets[0].name=site-mirror", "--wait", "--timeout=180s"});
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err << OperatorLog();
  EXPECT_TRUE(Eventually(
      [&] {
        return DaemonSetField(kReleaseNamespace, "rdmastack-agent",
                              "{.spec.template.spec.containers[0].resources.limits.memory} "
                              "{.spec.template.spec.imagePullSecrets[*].name}") ==
               "96Mi site-mirror";
      },
      120s))
      << OperatorLog();
  EXPECT_EQ(DaemonSetField(ns_->name(), "kvcache-gpudirect-client",
                           "{.spec.template.spec.imagePullSecrets[*].name}"),
            "site-mirror");
  // Both replicas were replaced: the hub's Service follows the new leader, and no former
  // leader's pod keeps an endpoint in it.
  EXPECT_TRUE(Eventually(hub_service_on_leader, 60s)) << hub_service();

  // Everything goes while the operator runs: clients leave the GPU nodes, gateways drain.
  for (const char* kind : {"clientprofiles", "gatewaypools"}) {
    CommandResult del =
        env_->Kubectl({"delete", kind, "--all", "-n", ns_->name(), "--timeout=120s"});
    EXPECT_EQ(del.exit_code, 0) << kind << ": " << del.err << OperatorLog();
  }
  EXPECT_TRUE(Eventually(
      [&] {
        return DaemonSetField(kReleaseNamespace, "rdmastack-agent", "{.metadata.name}") == "";
      },
      60s))
      << "the agent DaemonSet stays with no pool or profile";
  // Nothing of the pool or the profile stays on the nodes: track and client labels, upgrade state.
  const std::string node_json = Get({"get", "nodes", "-o", "json"});
  EXPECT_EQ(node_json.find("gwp.rdmastack.io/" + ns_->name()), std::string::npos);
  EXPECT_EQ(node_json.find("rdmastack.io/client." + ns_->name()), std::string::npos);

  // The audit log: no request of the operator was refused, and every permission the chart gives
  // it was used.
  std::set<Permission> used;
  std::vector<std::string> refused;
  // The Secret informers select by name (fieldSelector metadata.name, which the API server
  // records as the request's name): never a list or watch of a namespace's Secrets.
  std::vector<std::string> secrets_unnamed;
  std::set<std::string> secrets_watched;
  for (const AuditedWrite& r : ReadAuditedRequests()) {
    if (r.user != kOperatorUser || r.received < started || r.resource.empty()) continue;
    if (r.resource == "secrets" && (r.verb == "list" || r.verb == "watch")) {
      if (r.name.empty()) secrets_unnamed.push_back(r.verb + " " + r.namespace_);
      if (r.verb == "watch") secrets_watched.insert(r.namespace_ + "/" + r.name);
    }
    Permission p{r.api_group, r.resource, r.subresource, r.verb};
    if (r.code == 403) {
      refused.push_back(p.Name() + " " + r.namespace_ + "/" + r.name);
      continue;
    }
    used.insert(p);
    // A server-side apply, or a PUT where the kind allows create-on-update (a Lease), that made
    // the object (201) was authorised as create too.
    if ((r.verb == "patch" || r.verb == "update") && r.code == 201)
      used.insert({p.group, p.resource, p.subresource, "create"});
  }
  EXPECT_TRUE(refused.empty()) << refused.size() << " refused, first: " << refused.front();
  EXPECT_TRUE(secrets_unnamed.empty())
      << secrets_unnamed.size() << " unselected, first: " << secrets_unnamed.front();
  for (const char* name : {"kvcache-s3-root", "kvcache-gpudirect-s3-user"})
    EXPECT_EQ(secrets_watched.count(ns_->name() + "/" + name), 1u)
        << name << " " << ::testing::PrintToString(secrets_watched);
  ASSERT_FALSE(used.empty()) << "no request of " << kOperatorUser << " in the audit log";
  std::set<Permission> granted;
  for (const std::string& ns : {ns_->name(), std::string(kReleaseNamespace)}) {
    CommandResult can =
        env_->Kubectl({"auth", "can-i", "--list", "--as=" + std::string(kOperatorUser), "-n", ns});
    ASSERT_EQ(can.exit_code, 0) << can.err;
    for (const Permission& p : ParseCanIList(can.out)) granted.insert(p);
  }
  ASSERT_FALSE(granted.empty());
  std::string unused;
  for (const Permission& p : granted) {
    // The informers list only when a server refuses watch-list; this one does not.
    const bool list_of_watched = p.verb == "list" && used.count({p.group, p.resource, "", "watch"});
    if (!used.count(p) && !list_of_watched) unused += "  " + p.Name() + "\n";
  }
  EXPECT_EQ(unused, "") << "granted by the chart, never used by the operator";
  std::string used_list;
  for (const Permission& p : used) used_list += "  " + p.Name() + "\n";
  std::printf("the operator used:\n%s", used_list.c_str());

  // helm uninstall: the chart's objects and the operator's state in its namespace go.
  CommandResult un = Helm({"uninstall", kRelease, "--wait", "--timeout=60s"});
  ASSERT_EQ(un.exit_code, 0) << un.err;
  installed_ = false;
  EXPECT_EQ(Get({"get", "deploy,ds,svc,sa,role,rolebinding,lease,secret,configmap", "-n",
                 kReleaseNamespace, "-o", "name"}),
            "serviceaccount/default\nconfigmap/kube-root-ca.crt\n");
  EXPECT_EQ(Get({"get", "clusterrole,clusterrolebinding", "-l",
                 "app.kubernetes.io/instance=rdmastack", "-o", "name"}),
            "");
  EXPECT_EQ(Get({"get", "crd", "gatewaypools.rdmastack.io", "-o", "name"}),
            "customresourcedefinition.apiextensions.k8s.io/gatewaypools.rdmastack.io\n");
  env_->Kubectl({"delete", "namespace", kReleaseNamespace, "--wait=false"});
}

// `kubectl auth can-i VERB RESOURCE` as the operator's ServiceAccount, through the API server's
// RBAC authorizer: "yes" or "no". `ns` "" asks for every namespace (-A).
std::string CanI(const ClusterEnv& env, const std::string& verb, const std::string& resource,
                 const std::string& ns) {
  std::vector<std::string> args = {"auth", "can-i", verb, resource,
                                   "--as=" + std::string(kOperatorUser)};
  if (ns.empty()) {
    args.push_back("--all-namespaces");
  } else {
    args.insert(args.end(), {"-n", ns});
  }
  CommandResult r = env.Kubectl(args);
  return r.out.substr(0, r.out.find('\n'));
}

// Least privilege is the default: `helm install` with no values serves the release namespace
// alone, so the operator can write no Secret and no DaemonSet, nor delete a pod, anywhere else
// (kube-system included); cluster-wide operation is the admin's explicit opt-in
// (tenancy.clusterWide), which NOTES.txt says. The admission policy holds the operator's pod writes
// to the hub label of its own pods and to gateway pods in both. Answers from the real RBAC
// authorizer and admission chain; nothing here needs a node.
TEST_F(ChartE2eTest, DefaultInstallGrantsNothingOutsideTheNamespacesItServes) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  TestNamespace other(*env_, "tenant");
  Install({});
  if (HasFatalFailure()) return;
  EXPECT_NE(notes_.find("serves GatewayPools and ClientProfiles in: rdmastack-system\n"),
            std::string::npos)
      << notes_;
  EXPECT_EQ(notes_.find("CLUSTER-WIDE"), std::string::npos) << notes_;
  const std::string args = Get({"get", "deploy", "rdmastack-operator", "-n", kReleaseNamespace,
                                "-o", "jsonpath={.spec.template.spec.containers[0].args}"});
  EXPECT_NE(args.find("\"--tenant-namespace=rdmastack-system\""), std::string::npos) << args;
  EXPECT_NE(args.find("\"--host-port-range=1024-65535\""), std::string::npos) << args;
  EXPECT_EQ(args.find("--allow-control-plane-tolerations"), std::string::npos) << args;

  // Every namespaced kind the tenant rules cover, every write verb and the reads of Secrets: no
  // outside the served namespace, whichever form the question takes.
  const std::vector<std::pair<std::string, std::string>> outside_forms = {
      {"update", "secrets"},
      {"create", "secrets"},
      {"patch", "secrets"},
      {"delete", "secrets"},
      {"get", "secrets"},
      {"list", "secrets"},
      {"watch", "secrets"},
      {"create", "daemonsets.apps"},
      {"patch", "daemonsets.apps"},
      {"update", "daemonsets.apps"},
      {"delete", "daemonsets.apps"},
      {"delete", "pods"},
      {"create", "pods"},
      {"patch", "pods"},
      {"list", "pods"},
      {"create", "configmaps"},
      {"delete", "services"},
      {"create", "endpointslices.discovery.k8s.io"},
      {"create", "roles.rbac.authorization.k8s.io"},
      {"create", "rolebindings.rbac.authorization.k8s.io"}};
  for (const std::string& ns : {std::string("kube-system"), std::string("default"), other.name()}) {
    for (const auto& [verb, resource] : outside_forms)
      EXPECT_EQ(CanI(*env_, verb, resource, ns), "no") << verb << " " << resource << " -n " << ns;
  }
  for (const auto& [verb, resource] :
       std::vector<std::pair<std::string, std::string>>{{"list", "secrets"},
                                                        {"watch", "secrets"},
                                                        {"update", "secrets"},
                                                        {"create", "daemonsets.apps"},
                                                        {"delete", "pods"},
                                                        {"list", "pods"},
                                                        {"list", "daemonsets.apps"}})
    EXPECT_EQ(CanI(*env_, verb, resource, ""), "no") << verb << " " << resource << " -A";
  for (const auto& [verb, resource] : std::vector<std::pair<std::string, std::string>>{
           {"create", "clusterrolebindings.rbac.authorization.k8s.io"},
           {"escalate", "clusterroles.rbac.authorization.k8s.io"},
           {"impersonate", "serviceaccounts"},
           {"create", "serviceaccounts/token"},
           {"update", "validatingadmissionpolicies.admissionregistration.k8s.io"},
           {"delete", "validatingadmissionpolicybindings.admissionregistration.k8s.io"},
           {"update", "mutatingwebhookconfigurations.admissionregistration.k8s.io"},
           {"delete", "nodes"}})
    EXPECT_EQ(CanI(*env_, verb, resource, kReleaseNamespace), "no") << verb << " " << resource;
  // Where it serves (the release namespace), the tenant rules.
  for (const auto& [verb, resource] :
       std::vector<std::pair<std::string, std::string>>{{"list", "secrets"},
                                                        {"create", "secrets"},
                                                        {"create", "daemonsets.apps"},
                                                        {"delete", "pods"},
                                                        {"patch", "pods"}})
    EXPECT_EQ(CanI(*env_, verb, resource, kReleaseNamespace), "yes") << verb << " " << resource;

  // RBAC grants patch and delete of pods there; the admission policy narrows them to what the
  // operator does: the hub label of its own pods, and gateway pods. Dry runs go through admission
  // and change nothing.
  const std::vector<std::string> pods = OperatorPods();
  ASSERT_FALSE(pods.empty());
  const std::string as = "--as=" + std::string(kOperatorUser);
  const auto as_operator = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"-n", kReleaseNamespace, as, "--dry-run=server"});
    CommandResult r = env_->Kubectl(args);
    return std::to_string(r.exit_code) + " " + r.out + r.err;
  };
  EXPECT_EQ(as_operator({"label", "pod", pods[0], "rdmastack.io/agent-hub=serving", "--overwrite"})
                .substr(0, 2),
            "0 ");
  for (const std::vector<std::string>& write : std::vector<std::vector<std::string>>{
           {"label", "pod", pods[0], "app.kubernetes.io/name=other", "--overwrite"},
           {"label", "pod", pods[0], "rdmastack.io/agent-hub=elsewhere", "--overwrite"},
           {"label", "pod", pods[0], "extra=1"},
           {"annotate", "pod", pods[0], "extra=1"},
           {"patch", "pod", pods[0], "--type=json", "-p",
            R"([{"op":"replace","path":"/spec/activeDeadlineSeconds","value":1}])"},
           {"delete", "pod", pods[0]}}) {
    const std::string answer = as_operator(write);
    EXPECT_NE(answer.find("the rdmastack operator may "), std::string::npos)
        << ::testing::PrintToString(write) << ": " << answer;
  }
  // RBAC grants Lease creates there (a deleted leader Lease is made again); the policy holds them
  // to that one name.
  for (const char* lease : {"not-the-operators", "rdmastack-operator"}) {
    CommandResult made = env_->Kubectl(
        {"create", "-f", "-", "-n", kReleaseNamespace, as, "--dry-run=server"},
        std::string(
            R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":")") +
            lease + R"("}})");
    const std::string answer = made.out + made.err;
    if (std::string(lease) == "rdmastack-operator") {
      EXPECT_EQ(answer.find("may create only"), std::string::npos) << answer;  // exists already
    } else {
      EXPECT_NE(answer.find("the rdmastack operator may create only the Lease rdmastack-operator"),
                std::string::npos)
          << made.exit_code << " " << answer;
    }
  }

  // The opt-in: every namespace, said at upgrade time too; the policy still holds the pod writes.
  CommandResult up = Helm({"upgrade", kRelease, SourcePath("charts/rdmastack"), "--reuse-values",
                           "--set", "tenancy.clusterWide=true", "--wait", "--timeout=180s"});
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err << OperatorLog();
  EXPECT_NE(up.out.find("CLUSTER-WIDE (tenancy.clusterWide=true)"), std::string::npos) << up.out;
  for (const std::string& ns : {std::string("kube-system"), other.name()}) {
    for (const auto& [verb, resource] : std::vector<std::pair<std::string, std::string>>{
             {"update", "secrets"}, {"create", "daemonsets.apps"}, {"delete", "pods"}})
      EXPECT_EQ(CanI(*env_, verb, resource, ns), "yes") << verb << " " << resource << " -n " << ns;
  }
  EXPECT_EQ(CanI(*env_, "list", "secrets", ""), "yes");
  EXPECT_EQ(Get({"get", "deploy", "rdmastack-operator", "-n", kReleaseNamespace, "-o",
                 "jsonpath={.spec.template.spec.containers[0].args}"})
                .find("--tenant-namespace"),
            std::string::npos);
  other.Apply(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: bystander}\nspec:\n  containers: [{name: c, "
      "image: rdmastack.invalid/x}]\n");
  CommandResult del =
      env_->Kubectl({"delete", "pod", "bystander", "-n", other.name(), as, "--dry-run=server"});
  EXPECT_NE((del.out + del.err).find("may delete only gateway pods"), std::string::npos)
      << del.exit_code << " " << del.out << del.err;
  // Both at once are refused with the values to change.
  CommandResult both = Helm({"upgrade", kRelease, SourcePath("charts/rdmastack"), "--reuse-values",
                             "--set", "tenancy.namespaces={" + other.name() + "}"});
  EXPECT_NE(both.exit_code, 0);
  EXPECT_NE(both.err.find("tenancy.clusterWide=true serves every namespace, but "
                          "tenancy.namespaces also lists " +
                          other.name()),
            std::string::npos)
      << both.err;
}

// A pod floods every port of the operator: from a simulated node's address (every pod on a
// simulated node has its node's address, so this stands for one pod's), it keeps 30 connections
// open to each replica's probe, metrics and webhook ports and to the leader's agent hub for 75 s,
// opening a new one whenever one is closed; on the probe port every other one sends half a
// request head and stops. The kubelet's probes (the node runtime's, from the host's address)
// keep answering: no replica restarts or leaves Ready through three liveness periods; the API
// server's webhook calls are answered (a labelled pod is admitted, the profile injected); every
// agent stays Reporting. The flood holds at most its per-address share (8) of any port, the rest
// closed at once, and the slow heads are closed at the header deadline (5 s): the leader's
// metrics count both.
TEST_F(ChartE2eTest, ListenersKeepServingWhileANodeHoldsSilentConnections) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  std::vector<std::string> storage;
  if (const std::string missing = NodesWithFixture(kBond0, 2, &storage); !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  ns_ = std::make_unique<TestNamespace>(*env_, "listeners");
  selector_label_ = "e2e.rdmastack.io/" + ns_->name();
  Install({"--set", "tenancy.namespaces={" + ns_->name() + "}"});
  if (HasFatalFailure()) return;
  std::string pool = SeedPool("    drainSeconds: 3\n    maxParallel: 1\n");
  pool.replace(pool.find("SELECTOR"), 8, selector_label_);
  ns_->Apply(pool);
  ns_->Apply(ReadSample("clientprofile-gpudirect.yaml"));
  ASSERT_NO_FATAL_FAILURE(LabelStorageAndAwaitReady(storage));

  // The flooding node runs no agent and no operator pod: a node's pods share its address here,
  // so an agent there would share the flood's per-address share (a real pod has an address of its
  // own).
  std::string flooder;
  for (const auto& [name, node] : nodes_) {
    const std::string on_node = Get({"get", "pods", "-n", kReleaseNamespace, "--field-selector",
                                     "spec.nodeName=" + name, "-o",
                                     "jsonpath={.items[*].metadata.labels.app\\.kubernetes\\.io/"
                                     "name}"});
    if (on_node.find("rdmastack-agent") == std::string::npos &&
        on_node.find("rdmastack-operator") == std::string::npos) {
      flooder = name;
      break;
    }
  }
  if (flooder.empty()) GTEST_SKIP() << "no simulated node without an agent or operator pod";
  const std::vector<std::string> pods = OperatorPods();
  ASSERT_EQ(pods.size(), 2u);
  const std::string leader = LeaderPod();
  auto pod_field = [&](const std::string& pod, const std::string& jsonpath) {
    return Get({"get", "pod", pod, "-n", kReleaseNamespace, "-o", "jsonpath=" + jsonpath});
  };
  std::vector<HeldTarget> targets;
  std::map<std::string, std::string> restarts;
  for (const std::string& pod : pods) {
    const std::string ip = pod_field(pod, "{.status.podIP}");
    ASSERT_FALSE(ip.empty()) << pod;
    targets.push_back({ip, 8081, /*plain_http=*/true});
    targets.push_back({ip, 8443, false});
    targets.push_back({ip, 9444, false});
    if (pod == leader) targets.push_back({ip, 9443, false});
    restarts[pod] = pod_field(pod, "{.status.containerStatuses[0].restartCount}");
  }
  auto ready_and_unrestarted = [&] {
    std::string out;
    for (const auto& [pod, before] : restarts) {
      const std::string now = pod_field(pod,
                                        "{.status.containerStatuses[0].restartCount}/"
                                        "{.status.conditions[?(@.type==\"Ready\")].status}");
      if (now != before + "/True") out += pod + " " + now + " (restarts before " + before + ") ";
    }
    return out;
  };
  ns_->Apply("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: scraper}\n");
  env_->Kubectl({"create", "clusterrolebinding", "scraper-" + ns_->name(),
                 "--clusterrole=rdmastack-metrics-reader",
                 "--serviceaccount=" + ns_->name() + ":scraper"});
  std::string token = RunCommand({env_->cluster_script, "token", ns_->name(), "scraper"}).out;
  token = token.substr(0, token.find_last_not_of("\n") + 1);

  constexpr auto kFlood = 75s;  // over three liveness periods (10 s) and failure thresholds (3)
  ConnectionHolder flood(nodes_.at(flooder).netns, targets, /*per_target=*/30, kFlood);
  const auto start = std::chrono::steady_clock::now();
  std::string lapses, probe_failures, injected;
  bool admitted = false;
  while (std::chrono::steady_clock::now() - start < kFlood - 5s) {
    std::this_thread::sleep_for(5s);
    lapses += ready_and_unrestarted();
    // A probe as the kubelet sends it, from the host's address.
    for (const HeldTarget& t : targets) {
      if (t.port != 8081) continue;
      const std::string code = RunCommand({"curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                                           "--max-time", "2", "http://" + t.ip + ":8081/healthz"})
                                   .out;
      if (code != "200") probe_failures += t.ip + ":" + code + " ";
    }
    if (!admitted && std::chrono::steady_clock::now() - start > 20s) {
      admitted = AdmitsALabelledPod(20s, &injected);
    }
  }
  const std::vector<PromSample> scrape = ParsePromText(
      RunCommand({"curl", "-sk", "-H", "Authorization: Bearer " + token,
                  "https://" + pod_field(leader, "{.status.podIP}") + ":8443/metrics"})
          .out);
  const HoldCounts counts = flood.Wait();
  env_->Kubectl({"delete", "clusterrolebinding", "scraper-" + ns_->name()});
  std::printf(
      "flood from %s: %d connections, %d closed at once, %d closed later, at most %d held "
      "to one port\n",
      flooder.c_str(), counts.opened, counts.closed_at_once, counts.closed_later, counts.max_held);

  EXPECT_EQ(lapses, "") << "replicas restarted or not Ready during the flood\n" << OperatorLog();
  EXPECT_EQ(probe_failures, "") << "probes not answered during the flood";
  EXPECT_TRUE(admitted) << injected << OperatorLog();
  for (const std::string& node : storage) {
    EXPECT_EQ(Get({"get", "rdmanode", node, "-o",
                   "jsonpath={.status.conditions[?(@.type==\"Reporting\")].status}"}),
              "True")
        << node;
  }
  EXPECT_LE(counts.max_held, 8) << flood.result().out << flood.result().err;
  EXPECT_GT(counts.closed_at_once, 0) << flood.result().out << flood.result().err;
  for (const char* listener : {"probes", "metrics", "webhook", "agenthub"}) {
    EXPECT_GT(SampleValue(scrape, "rdmastack_listener_connections_refused_total",
                          {{"listener", listener}, {"reason", "max_connections_per_address"}})
                  .value_or(0),
              0)
        << listener;
  }
  EXPECT_GT(
      SampleValue(scrape, "rdmastack_listener_header_timeouts_total", {{"listener", "probes"}})
          .value_or(0),
      0);
}

}  // namespace
}  // namespace rdmastack::testing
