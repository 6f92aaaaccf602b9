#include "tests/bench/scale/kwok_nodes.h"

#include "controllers/rdmanode/rdmanode_status.h"
#include "controllers/rdmanode/testing/fixture_reports.h"
#include "crds/types/json.h"
#include "crds/types/kinds.h"
#include "operator/k8s/api_error.h"

namespace rdmastack::bench {

Status CreateKwokNode(k8s::Client& client, const std::string& name,
                      const std::map<std::string, std::string>& labels, const std::string& ip) {
  auto node = k8s::JsonObject::Parse(R"({"apiVersion":"v1","kind":"Node","metadata":{
      "annotations":{"kwok.x-k8s.io/node":"fake"},"labels":{"type":"kwok"}},
      "status":{"allocatable":{"cpu":"64","memory":"512Gi","pods":"110",
        "rdma/hca_shared_devices_a":"1k"},"capacity":{"cpu":"64","memory":"512Gi","pods":"110",
        "rdma/hca_shared_devices_a":"1k"}}})");
  if (!node.ok()) return node.status();
  node->SetName(name);
  for (const auto& [key, value] : labels) node->SetLabel(key, value);
  RDMASTACK_RETURN_IF_ERROR(
      node->Append({"status", "addresses"},
                   *k8s::JsonObject::Parse(R"({"type":"InternalIP","address":")" + ip + "\"}")));
  auto created = client.Create(k8s::kinds::Node(), *node);
  if (!created.ok() && !k8s::IsAlreadyExists(created.status())) return created.status();
  // kwok's node controller keeps the status, but the API server drops status on create.
  return client
      .PatchStatus(k8s::kinds::Node(), "", name, k8s::PatchType::kMerge,
                   R"({"status":)" + node->Get({"status"})->Serialize() + "}")
      .status();
}

crd::RdmaNodeStatus GatewayNodeStatus(int index) {
  crd::RdmaNodeStatus s;
  for (const char* type : {"Reporting", "GatewayCapable"}) {
    crd::Condition c;
    c.type = type;
    c.status = crd::ConditionStatus::kTrue;
    c.reason = type == std::string("Reporting") ? "Connected" : "Verified";
    c.message = "bench";
    c.last_transition_time = "2026-12-01T00:00:00Z";
    s.conditions.push_back(c);
  }
  crd::Verdicts verdicts;
  verdicts.gateway = crd::Verdict{crd::Capability::kYes, "Verified", std::nullopt};
  s.verdicts = verdicts;
  crd::NetDevFacts bond;
  bond.name = "bond0";
  bond.ipv4 = {"100.64." + std::to_string(index / 250) + "." + std::to_string(index % 250 + 1) +
               "/16"};
  bond.rdma_device = "mlx5_0";
  s.netdevs.push_back(bond);
  return s;
}

crd::RdmaNodeStatus ClientNodeStatus(const std::string& fixture, const std::string& profile,
                                     const std::string& node) {
  crd::RdmaNodeStatus s;
  rdmanode::FillFacts(rdmanode::testing::FixtureReport(
                          fixture, rdmanode::testing::ClientRequirements(profile), node),
                      &s);
  s.agent = crd::AgentStatus{crd::AgentState::kConnected, "0.1.0", {}, {}, {}};
  crd::Condition reporting;
  reporting.type = "Reporting";
  reporting.status = crd::ConditionStatus::kTrue;
  reporting.reason = "Connected";
  reporting.message = "bench";
  reporting.last_transition_time = "2026-12-01T00:00:00Z";
  s.conditions.push_back(reporting);
  return s;
}

Status CreateRdmaNode(k8s::Client& client, const std::string& node, crd::RdmaNodeStatus status) {
  crd::RdmaNode rnode;
  rnode.metadata.name = node;
  rnode.spec.node_name = node;
  auto body = k8s::JsonObject::Parse(crd::SerializeResource(rnode));
  if (!body.ok()) return body.status();
  auto created = client.Create(crd::kinds::RdmaNode(), *body);
  if (!created.ok() && !k8s::IsAlreadyExists(created.status())) return created.status();
  rnode.status = std::move(status);
  auto patch = k8s::JsonObject::Parse(crd::SerializeStatusPatch(rnode));
  if (!patch.ok()) return patch.status();
  k8s::PatchOptions options;
  options.field_manager = "bench";
  return client.ApplyStatus(crd::kinds::RdmaNode(), *patch, options).status();
}

}  // namespace rdmastack::bench
