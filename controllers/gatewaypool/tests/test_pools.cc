#include "controllers/gatewaypool/tests/test_pools.h"

#include <gtest/gtest.h>

#include "controllers/gatewaypool/compatibility_source.h"
#include "crds/types/json.h"
#include "crds/types/rdmanode_api.h"
#include "crds/types/test_support.h"

namespace rdmastack::gatewaypool::testing {

crd::GatewayPool SamplePool(const std::string& file) {
  auto docs = crd::testing::LoadSourceYaml("crds/samples/" + file);
  auto parsed = crd::ParseResource<crd::GatewayPool>(
      crd::testing::YamlToJson(crd::testing::FindKind(docs, "GatewayPool")));
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  crd::GatewayPool pool = parsed.ok() ? *parsed : crd::GatewayPool{};
  pool.metadata.namespace_ = "storage";
  pool.metadata.uid = "0c6f5a4e-0000-4000-8000-000000000001";
  pool.metadata.generation = 1;
  return pool;
}

compat::CompatibilityMatrix ShippedMatrix() {
  auto m = compat::ParseCompatibility(BuiltInCompatibilityYaml());
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : compat::CompatibilityMatrix{};
}

crd::RdmaNodeStatus AgentStatus(bool capable, const std::vector<std::string>& netdevs,
                                const std::string& reason) {
  crd::RdmaNodeStatus s;
  crd::Condition reporting;
  reporting.type = rdmanode::kReporting;
  reporting.status = crd::ConditionStatus::kTrue;
  reporting.reason = "Connected";
  s.conditions.push_back(reporting);
  crd::Condition gateway;
  gateway.type = rdmanode::kGatewayCapable;
  gateway.status = capable ? crd::ConditionStatus::kTrue : crd::ConditionStatus::kFalse;
  gateway.reason = reason;
  gateway.message = capable ? "capable" : "rdma.port-active Fail: mlx5_0 port 1 is DOWN";
  s.conditions.push_back(gateway);
  for (const std::string& spec : netdevs) {
    const size_t space = spec.find(' ');
    crd::NetDevFacts n;
    n.name = spec.substr(0, space);
    if (space != std::string::npos) n.ipv4.push_back(spec.substr(space + 1));
    if (n.name.rfind("eth", 0) != 0) n.rdma_device = "mlx5_0";
    // Two addresses on one netdev: "bond0 10.0.0.1/24 10.0.0.2/24".
    if (space != std::string::npos) {
      const std::string rest = spec.substr(space + 1);
      if (const size_t second = rest.find(' '); second != std::string::npos) {
        n.ipv4 = {rest.substr(0, second), rest.substr(second + 1)};
      }
    }
    s.netdevs.push_back(n);
  }
  return s;
}

}  // namespace rdmastack::gatewaypool::testing
