#include "tests/e2e/common/pool_e2e_fixture.h"

#include <rapidjson/document.h>
#include <signal.h>

#include <fstream>
#include <random>
#include <sstream>

#include "base/clock.h"
#include "operator/k8s/config.h"

namespace rdmastack::testing {

using namespace std::chrono_literals;

std::string RandomBytes(size_t n) {
  std::mt19937 rng(std::random_device{}());
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng() & 0xff);
  return out;
}

std::string Describe(const std::vector<AuditedWrite>& writes) {
  std::string out;
  for (const auto& w : writes) out += w.verb + " " + w.resource + " " + w.name + "\n";
  return out;
}

std::string ReadSample(const std::string& file) {
  std::ifstream in(SourcePath("crds/samples/" + file));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string SeedPool(const std::string& upgrade) {
  std::string yaml = ReadSample("gatewaypool-kvcache.yaml");
  auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = yaml.find(from);
    if (at != std::string::npos) yaml.replace(at, from.size(), to);
  };
  replace("    node-role.rdmastack.io/storage: \"\"", "    SELECTOR: \"in\"");
  const size_t at = yaml.find("  upgrade:\n");
  yaml = yaml.substr(0, at) + "  upgrade:\n" + upgrade;
  return yaml;
}

const char kToV2[] =
    R"({"spec":{"gateway":{"image":"registry.local/rdmastack/vgwrdma:1.8.0-cuobj2",)"
    R"("version":"1.8.0-cuobj2"},"serverLibrary":{"version":"2.0.0.109",)"
    R"("image":"registry.local/rdmastack/libcuobjserver:2.0.0.109"},)"
    R"("s3":{"port":7072},"rdma":{"port":19101}}})";

std::vector<SliceEndpoint> ReadEndpoints(const ClusterEnv& env, const std::string& ns,
                                         const std::string& pool) {
  std::vector<SliceEndpoint> out;
  // Polled by many waits and the upgrade watcher: through the API client, not a kubectl each.
  k8s::Client* api = env.Api();
  if (api == nullptr) return out;
  k8s::ListOptions options;
  options.label_selector = "gatewaypool.rdmastack.io/name=" + pool;
  auto list = api->List(k8s::kinds::EndpointSlice(), ns, options);
  if (!list.ok()) return out;
  for (const k8s::JsonObject& item : list->items) {
    const rapidjson::Value& slice = item.value();
    int port = 0;
    if (!slice.HasMember("ports") || !slice["ports"].IsArray()) continue;
    for (const auto& p : slice["ports"].GetArray()) {
      if (std::string(p["name"].GetString()) == "s3") port = p["port"].GetInt();
    }
    if (!slice.HasMember("endpoints") || !slice["endpoints"].IsArray()) continue;
    for (const auto& e : slice["endpoints"].GetArray()) {
      SliceEndpoint ep;
      ep.slice = slice["metadata"]["name"].GetString();
      ep.node = e["nodeName"].GetString();
      ep.ip = e["addresses"][0].GetString();
      ep.port = port;
      ep.ready = e["conditions"]["ready"].GetBool();
      ep.serving = e["conditions"]["serving"].GetBool();
      ep.terminating = e["conditions"]["terminating"].GetBool();
      out.push_back(ep);
    }
  }
  return out;
}

void SimE2eTest::SetUp() {
  env_ = GetClusterEnv();
  if (env_ == nullptr) GTEST_SKIP() << "no cluster (RDMASTACK_KUBECONFIG)";
  nodes_ = SimulatedNodes();
  if (nodes_.empty()) GTEST_SKIP() << "no simulated nodes (RDMASTACK_SIM_NODES)";
  const char* gateway = std::getenv("RDMASTACK_SIM_GATEWAY");
  ASSERT_NE(gateway, nullptr);
  bridge_ = gateway;
  ASSERT_EQ(InstallCrds(*env_).exit_code, 0);
  // One kubectl for every node's fixture, not one per node: each kubectl costs about 50 ms of
  // CPU, and the e2e phase of CI is CPU-bound (docs/development.md).
  std::istringstream fixtures(Get(
      {"get", "nodes", "-o",
       R"(jsonpath={range .items[*]}{.metadata.name}{"\t"}{.metadata.annotations.sim\.rdmastack\.io/fixture}{"\n"}{end})"}));
  for (std::string line; std::getline(fixtures, line);) {
    const size_t tab = line.find('\t');
    if (tab != std::string::npos && nodes_.count(line.substr(0, tab)) != 0)
      fixtures_[line.substr(0, tab)] = line.substr(tab + 1);
  }
  // The operator watches the whole cluster: what earlier tests left (namespaces still being
  // deleted, their RdmaNodes) would be its work too and blur the write counts.
  EXPECT_TRUE(Eventually(
      [&] {
        return Get({"get", "namespaces", "-o",
                    R"(jsonpath={.items[?(@.status.phase=="Terminating")].metadata.name})"})
            .empty();
      },
      120s))
      << Get({"get", "namespaces"});
  env_->Kubectl({"delete", "rdmanodes", "--all", "--wait=true", "--timeout=60s"});
}

void SimE2eTest::TearDown() {
  if (env_ == nullptr || nodes_.empty()) return;
  operator_.reset();
  // Other tests use these nodes: no RdmaNode or rdmastack.io/ label of ours stays behind. Two
  // kubectl calls name every node (kubectl takes several names), not two per node.
  std::vector<std::string> remove = {"delete", "rdmanode", "--ignore-not-found", "--wait=false"};
  std::vector<std::string> unlabel = {"label", "node"};
  for (const auto& [name, node] : nodes_) {
    remove.push_back(name);
    unlabel.push_back(name);
  }
  for (const char* label : {"rdmastack.io/gateway-capable-", "rdmastack.io/gpudirect-",
                            "rdmastack.io/hostmem-", "rdmastack.io/link-layer-"})
    unlabel.push_back(label);
  if (!selector_label_.empty()) unlabel.push_back(selector_label_ + "-");
  env_->Kubectl(remove);
  const CommandResult unlabelled = env_->Kubectl(unlabel);
  EXPECT_EQ(unlabelled.exit_code, 0) << unlabelled.err;
}

std::string SimE2eTest::Get(const std::vector<std::string>& args) const {
  CommandResult r = env_->Kubectl(args);
  return r.exit_code == 0 ? r.out : "";
}

void SimE2eTest::ApplyAgentServiceAccount(const TestNamespace& ns) const {
  ApplyChartAgentServiceAccount(ns);
}

std::vector<std::string> SimE2eTest::OperatorArgs(const std::string& ns) const {
  const std::string hub = bridge_ + ":" + std::to_string(hub_port_);
  return {"--kubeconfig",
          env_->kubeconfig,
          "--metrics-bind-address=0",
          "--health-probe-bind-address=0",
          "--agent-namespace=" + ns,
          "--agent-bind-address=" + hub,
          "--agent-hub-address=" + hub,
          "--agent-pod-label=rdmastack.io/simulate=run",
          "--agent-arg=--ips-file=/host/etc/rdmastack-fixture/ips.txt",
          "--agent-arg=--probes-file=/host/etc/rdmastack-fixture/probes.txt",
          "--agent-arg=--probe-interval=1h"};
}

std::vector<AuditedWrite> SimE2eTest::OperatorWrites() const {
  return WritesByAgent(ReadAuditedWrites(), operator_->Identity());
}

std::string SimE2eTest::NodesWithFixture(const std::string& fixture, size_t want,
                                         std::vector<std::string>* out) const {
  for (const auto& [name, f] : fixtures_) {
    if (f == fixture && (want == 0 || out->size() < want)) out->push_back(name);
  }
  if (want == 0) return out->empty() ? "needs nodes of " + fixture : "";
  return out->size() == want ? "" : "needs " + std::to_string(want) + " nodes of " + fixture;
}

void PoolE2eTest::TearDown() {
  if (env_ == nullptr || nodes_.empty()) return;
  // The pool goes while the operator runs, so that its finalizer is honoured.
  if (ns_ != nullptr && operator_ != nullptr) {
    env_->Kubectl({"delete", "gatewaypools", "--all", "-n", ns_->name(), "--timeout=60s"});
  }
  SimE2eTest::TearDown();
  ns_.reset();
}

std::string PoolE2eTest::PoolField(const std::string& pool, const std::string& jsonpath) const {
  return Get({"get", "gwp", pool, "-n", ns_->name(), "-o", "jsonpath=" + jsonpath});
}

std::string PoolE2eTest::PoolCondition(const std::string& pool, const std::string& type,
                                       const std::string& field) const {
  return PoolField(pool, "{.status.conditions[?(@.type==\"" + type + "\")]." + field + "}");
}

std::string PoolE2eTest::FailingReason(const std::string& pool, const std::string& node) const {
  return PoolField(pool, "{.status.failingNodes[?(@.node==\"" + node + "\")].reason}");
}

std::unique_ptr<OperatorProcess> PoolE2eTest::LaunchOperator(const std::string& label,
                                                             std::vector<std::string> extra) const {
  std::vector<std::string> args = OperatorArgs(ns_->name());
  // Gateways run for real on the simulated nodes, addresses from the fixture.
  for (const char* flag :
       {"--gateway-pod-label=rdmastack.io/simulate=run",
        "--gateway-env=RDMASTACK_GW_IPS_FILE=/host/etc/rdmastack-fixture/ips.txt",
        "--gateway-host-mount=/etc/rdmastack-fixture"})
    args.push_back(flag);
  args.insert(args.end(), extra_operator_args_.begin(), extra_operator_args_.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return std::make_unique<OperatorProcess>(label, std::move(args));
}

void PoolE2eTest::Start(const std::string& prefix, std::string pools) {
  ns_ = std::make_unique<TestNamespace>(*env_, prefix);
  selector_label_ = "e2e.rdmastack.io/" + ns_->name();
  ApplyAgentServiceAccount(*ns_);
  if (HasFatalFailure()) return;
  for (size_t at = pools.find("SELECTOR"); at != std::string::npos; at = pools.find("SELECTOR"))
    pools.replace(at, 8, selector_label_);
  ns_->Apply(pools);
  hub_port_ = FreePortOn(bridge_);
  StartOperator(prefix);
}

std::vector<std::string> PoolE2eTest::SimulatedClientArgs() {
  return {"--client-pod-label=rdmastack.io/simulate=run",
          "--client-arg=--ips-file=/host/etc/rdmastack-fixture/ips.txt",
          "--client-arg=--probes-file=/host/etc/rdmastack-fixture/probes.txt",
          "--client-arg=--interval=1s"};
}

std::vector<SliceEndpoint> PoolE2eTest::AwaitReadyEndpoints(const std::string& pool,
                                                            size_t nodes) const {
  std::vector<SliceEndpoint> endpoints;
  const bool ready = Eventually(
      [&] {
        endpoints = Endpoints(pool);
        return ReadyEndpointNodes(pool).size() == nodes;
      },
      std::chrono::seconds(30));
  return ready ? endpoints : std::vector<SliceEndpoint>{};
}

std::set<std::string> PoolE2eTest::ReadyEndpointNodes(const std::string& pool) const {
  std::set<std::string> out;
  for (const auto& e : Endpoints(pool)) {
    if (e.ready) out.insert(e.node);
  }
  return out;
}

s3::S3Client PoolE2eTest::Client(const SliceEndpoint& e, std::optional<s3::Credentials> keys) {
  const uint16_t port = static_cast<uint16_t>(e.port);
  s3::Credentials signer = keys.value_or(s3::Credentials{kSeedAccessKey, kSeedSecretKey});
  if (tls_transport_)
    return s3::S3Client(*tls_transport_, s3::Endpoint{"https", e.ip, port}, std::move(signer),
                        "us-east-1", RealClock::Instance(), 5s);
  return s3::S3Client(transport_, s3::Endpoint{"http", e.ip, port}, std::move(signer), "us-east-1",
                      RealClock::Instance(), 5s);
}

bool PoolE2eTest::Serves(const SliceEndpoint& e) {
  auto r = Client(e).Send({.method = "GET", .path = "/"});
  return r.ok() && r->status == 200;
}

void PoolE2eTest::ApplyTlsSecret(const std::string& name, const std::string& cert_pem,
                                 const std::string& key_pem, const std::string& ca_pem) {
  CommandResult r = env_->Kubectl(
      {"apply", "-n", ns_->name(), "-f", "-"},
      R"({"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/tls","metadata":{"name":")" +
          name + R"("},"data":{"tls.crt":")" + k8s::EncodeBase64(cert_pem) + R"(","tls.key":")" +
          k8s::EncodeBase64(key_pem) + R"(","ca.crt":")" + k8s::EncodeBase64(ca_pem) + R"("}})");
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

void PoolE2eTest::HupAgent(const std::string& node) {
  const std::string container =
      Get({"get", "pods", "-n", ns_->name(), "-l", "app.kubernetes.io/name=rdmastack-agent",
           "--field-selector", "spec.nodeName=" + node, "-o",
           "jsonpath={.items[0].status.containerStatuses[0].containerID}"});
  const pid_t pid = PidOfContainerId(container);
  ASSERT_GT(pid, 0) << node;
  ASSERT_EQ(kill(pid, SIGHUP), 0);
}

std::string PoolE2eTest::Diagnostics() const {
  return OperatorLog() +
         Get({"get", "gwp,ds,pods,endpointslices", "-n", ns_->name(), "-o", "wide"}) +
         Get({"get", "gwp", "-n", ns_->name(), "-o", "yaml"});
}

}  // namespace rdmastack::testing
