#include "controllers/rdmanode/testing/fixture_reports.h"

#include "agents/node-agent/daemon/report_proto.h"
#include "node/checks/checks.h"
#include "node/probe/device_prober.h"
#include "node/probe/node_probe.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::rdmanode::testing {

agent::v1::Requirements GatewayRequirements() {
  agent::v1::Requirements r;
  r.set_gateway(true);
  return r;
}

agent::v1::Requirements ClientRequirements(const std::string& profile, int64_t max_transfer_bytes) {
  agent::v1::Requirements r;
  auto* c = r.add_clients();
  c->set_profile(profile);
  c->set_transport("Auto");
  c->set_memory_registration("Auto");
  c->set_max_transfer_bytes(max_transfer_bytes);
  c->set_max_gpu_nic_distance("PXB");
  c->set_gid_index(-1);
  return r;
}

node::NodeFacts FixtureFacts(const std::string& fixture) {
  const std::string dir = ::rdmastack::testing::SourcePath("tests/fixtures/nodes/" + fixture);
  auto prober = node::MakeFileDeviceProber(dir + "/probes.txt");
  node::ProbeOptions options;
  options.root = dir + "/root";
  options.ips_file = dir + "/ips.txt";
  options.device_prober = prober.ok() ? prober->get() : nullptr;
  return node::ProbeNode(options);
}

agent::v1::NodeReport FixtureReport(const std::string& fixture,
                                    const agent::v1::Requirements& requirements,
                                    const std::string& node) {
  const node::NodeFacts facts = FixtureFacts(fixture);
  std::vector<agent::ProfileEvaluation> evaluations;
  for (const auto& [profile, req] : agent::RequirementsFromHub(requirements, node::Role::kClient))
    evaluations.push_back({profile, node::Evaluate(facts, req)});
  return agent::BuildNodeReport(facts, evaluations, node);
}

agent::v1::PortCounters FixtureCounters(const std::string& fixture) {
  return agent::BuildPortCounters(FixtureFacts(fixture));
}

}  // namespace rdmastack::rdmanode::testing
