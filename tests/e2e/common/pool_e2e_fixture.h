#pragma once
// The fixtures of the end-to-end tests on simulated nodes: the node agents (SimE2eTest), and
// GatewayPools through the operator process and real gateways (PoolE2eTest).

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lib/s3/http.h"
#include "lib/s3/s3_client.h"
#include "tests/harness/audit_log.h"
#include "tests/harness/cluster_env.h"
#include "tests/integration/operator/operator_process.h"
#include "tests/integration/sim/sim_cluster.h"

namespace rdmastack::testing {

// The seed sample's keys (crds/samples/gatewaypool-kvcache.yaml).
inline constexpr char kSeedAccessKey[] = "kvcache-root";
inline constexpr char kSeedSecretKey[] = "change-me-please";

// The seed pool (crds/samples/gatewaypool-kvcache.yaml) on the nodes labelled SELECTOR=in, with
// the upgrade settings given (YAML lines under `upgrade:`).
std::string SeedPool(const std::string& upgrade);
// The 2.0 sample's gateway, library and ports as a merge patch of the seed pool.
extern const char kToV2[];

// One endpoint of a pool's EndpointSlices, as a client reads it.
struct SliceEndpoint {
  std::string node, ip, slice;
  int port = 0;
  bool ready = false, serving = false, terminating = false;
};

std::string RandomBytes(size_t n);
std::string Describe(const std::vector<AuditedWrite>& writes);
// crds/samples/<file>.
std::string ReadSample(const std::string& file);
// A pool's EndpointSlices in `ns`, read with kubectl as a client would.
std::vector<SliceEndpoint> ReadEndpoints(const ClusterEnv& env, const std::string& ns,
                                         const std::string& pool);

// What every end-to-end test on the simulated nodes shares: the cluster, its nodes and their
// fixtures, the CRDs, an operator wired to the nodes' bridge, and cleanup of what the node side
// leaves on shared nodes (RdmaNodes, rdmastack.io/ labels).
class SimE2eTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  std::string Get(const std::vector<std::string>& args) const;
  // The chart's agent ServiceAccount, applied into `ns`.
  void ApplyAgentServiceAccount(const TestNamespace& ns) const;
  // The operator's flags for agents in `ns` on the simulated nodes, the hub on the bridge.
  std::vector<std::string> OperatorArgs(const std::string& ns) const;
  std::vector<AuditedWrite> OperatorWrites() const;
  // The operator's output, for failure messages: the process's, or what a test that runs the
  // operator in the cluster collects from its pods.
  virtual std::string OperatorLog() const { return operator_ ? operator_->Output() : ""; }
  // Up to `want` nodes of `fixture` into `out` (every one with want 0); "" or what is missing.
  std::string NodesWithFixture(const std::string& fixture, size_t want,
                               std::vector<std::string>* out) const;

  const ClusterEnv* env_ = nullptr;
  sim::NodeTable nodes_;
  std::map<std::string, std::string> fixtures_;
  std::string bridge_;
  uint16_t hub_port_ = 0;
  std::string selector_label_;  // a node label a test sets; removed at the end
  std::unique_ptr<OperatorProcess> operator_;
};

// GatewayPools with real gateways: a namespace per test, the pool's nodes chosen by a label of
// the test's own, and readers for what clients see (EndpointSlices, S3).
class PoolE2eTest : public SimE2eTest {
 protected:
  void TearDown() override;

  std::string PoolField(const std::string& pool, const std::string& jsonpath) const;
  std::string PoolCondition(const std::string& pool, const std::string& type,
                            const std::string& field = "status") const;
  std::string FailingReason(const std::string& pool, const std::string& node) const;

  // The operator process, wired to the simulated nodes (agents and gateways run for real there).
  std::unique_ptr<OperatorProcess> LaunchOperator(const std::string& label,
                                                  std::vector<std::string> extra = {}) const;
  void StartOperator(const std::string& label) { operator_ = LaunchOperator(label); }
  // The chart's agent ServiceAccount and the pools (YAML; "SELECTOR" becomes this test's node
  // label) in a fresh namespace, then the operator.
  void Start(const std::string& prefix, std::string pools);

  std::vector<SliceEndpoint> Endpoints(const std::string& pool) const {
    return ReadEndpoints(*env_, ns_->name(), pool);
  }
  std::set<std::string> ReadyEndpointNodes(const std::string& pool) const;
  // Waits (30 s) until `nodes` nodes publish a ready endpoint of `pool`; its endpoints then, or
  // empty when they did not.
  std::vector<SliceEndpoint> AwaitReadyEndpoints(const std::string& pool, size_t nodes) const;

  // Signed with the pool's root keys unless `keys` are given.
  s3::S3Client Client(const SliceEndpoint& e, std::optional<s3::Credentials> keys = std::nullopt);
  // Client() speaks HTTPS and trusts `ca_pem` from here on (a pool with s3.tlsSecret).
  void UseTls(const std::string& ca_pem) {
    tls_transport_ = std::make_unique<s3::BeastHttpTransport>(s3::TlsOptions{.ca_pem = ca_pem});
  }
  // A signed ListBuckets through the endpoint answers 200.
  bool Serves(const SliceEndpoint& e);
  // Creates or updates (a rotation) Secret `name` in the test's namespace with tls.crt, tls.key
  // and ca.crt, the layout s3.tlsSecret asks for.
  void ApplyTlsSecret(const std::string& name, const std::string& cert_pem,
                      const std::string& key_pem, const std::string& ca_pem);
  // Re-probe: the agent on `node` re-reads its fixture on SIGHUP.
  void HupAgent(const std::string& node);
  std::string Diagnostics() const;

  std::unique_ptr<TestNamespace> ns_;
  s3::BeastHttpTransport transport_;
  std::unique_ptr<s3::BeastHttpTransport> tls_transport_;
  // More operator flags, for the tests of one part (clients).
  std::vector<std::string> extra_operator_args_;
  // The flags that run ClientProfiles' clients for real on the simulated nodes, checking every
  // second.
  static std::vector<std::string> SimulatedClientArgs();
};

}  // namespace rdmastack::testing
