#pragma once
// `kubectl rdmastack why NODE`: everything rdmastack publishes about one node in one place: its
// RdmaNode's verdicts, the checks that did not pass (reason, message, remedy), each GPU's path to
// its RDMA NIC, and what each GatewayPool and ClientProfile says about it. Pure.

#include <cstdint>
#include <string>
#include <vector>

#include "cli/kubectl-rdmastack/node_assessment.h"
#include "cli/kubectl-rdmastack/snapshot.h"
#include "lib/rails/gpu_rails.h"

namespace rdmastack::plugin {

// Whether the core Node exists; only asked when there is no RdmaNode.
enum class NodeExistence { kExists, kMissing, kUnknown };

// What one pool or profile says about the node.
struct Membership {
  std::string kind;  // "GatewayPool" or "ClientProfile"
  std::string namespace_;
  std::string name;
  // failing (pool's failingNodes), maintenance (pool's maintenanceNodes), serving (pool's
  // endpoints), ineligible, client-not-ready,
  // client-ready (profile's ineligibleNodes / eligibleNodes).
  std::string state;
  bool problem = false;  // failing, ineligible or client-not-ready
  std::string reason;
  std::string message;
  std::string since;
};

// One GPU and the RDMA NIC its GPU-direct traffic takes (the RdmaNode's status.gpus[]).
struct GpuPathView {
  std::string gpu;    // PCI address
  std::string model;  // "" when not reported
  std::string nic;    // nearest RDMA NIC; "" when no path
  std::string path;   // PIX | PXB | PHB | SYS; "" when no path
  std::string note;   // what breaks the path besides its length: ACS redirect, IOMMU translating
};

// The NIC each GPU's traffic takes to a ClientProfile's pool, as the client on the node decides
// it (node/checks/gpu_rails.h): on the pool's networks (status.networks) where a NIC of the node
// sits on one, else the nearest NIC, the pool being reached through routing.
struct ProfileRailsView {
  std::string profile;                // namespace/name
  std::string pool;                   // namespace/name
  std::string max_distance;           // the profile's maxGpuNicDistance
  std::vector<std::string> networks;  // "rail a 10.10.0.0/16", in the pool's order
  bool on_rails = false;
  std::vector<rails::GpuRailChoice> gpus;  // in the RdmaNode's GPU order
};

struct WhyView {
  std::string node;
  bool found = false;  // the node has an RdmaNode
  NodeAssessment assessment;
  std::vector<GpuPathView> gpus;  // in the RdmaNode's order
  // Each ClientProfile of the node whose pool publishes its networks.
  std::vector<ProfileRailsView> rails;
  std::vector<Membership> memberships;  // problems first, then by kind, namespace, name
  std::vector<std::string> notes;       // what the view cannot see (capped lists)
  // No RdmaNode: whether the Node exists, and RdmaNode or Node names that look like a typo of
  // `node`.
  NodeExistence existence = NodeExistence::kUnknown;
  std::vector<std::string> close_names;
  // Something fails: a Fail check, a verdict not True, a silent agent, a pool or profile that
  // reports the node, or no RdmaNode at all. The command's exit code is 1 then.
  bool failing = false;
};

// `node_names`: the cluster's Node names when the shell listed them (a node without an RdmaNode),
// for close names; may be empty.
WhyView BuildWhyView(const Snapshot& snapshot, const std::string& node, NodeExistence existence,
                     const std::vector<std::string>& node_names, int64_t now);

}  // namespace rdmastack::plugin
