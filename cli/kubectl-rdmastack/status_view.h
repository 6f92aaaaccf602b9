#pragma once
// `kubectl rdmastack status`: one line per GatewayPool, ClientProfile and RdmaNode. Pure: built
// from a Snapshot, rendered by render_text.h / render_json.h.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/kubectl-rdmastack/node_assessment.h"
#include "cli/kubectl-rdmastack/snapshot.h"

namespace rdmastack::plugin {

struct ConditionSummary {
  std::string status = "Unknown";  // "True", "False", "Unknown"
  std::string reason;              // "NoStatus" while the operator has written none
  std::string message;
};

struct PoolUpgradeSummary {
  std::string state;  // the Upgrading condition's reason: RollingOut, Paused, RolloutHalted, ...
  std::string from;
  std::string to;
  std::string strategy;
  int32_t done = 0;
  int32_t total = 0;
  int32_t failed = 0;
};

struct PoolSummary {
  std::string namespace_;
  std::string name;
  ConditionSummary ready;
  int32_t ready_gateways = 0;    // nodes with a Ready active gateway
  int32_t desired_gateways = 0;  // nodes the pool selects
  std::string library;           // serving, or "from->to" during an upgrade
  std::optional<PoolUpgradeSummary> upgrade;
  size_t failing_nodes = 0;
};

struct ProfileSummary {
  std::string namespace_;
  std::string name;
  ConditionSummary ready;
  int32_t matched = 0;
  int32_t eligible = 0;
  int32_t ready_clients = 0;
  std::string transport;  // status (GPUDirect, HostMemory, Mixed), else the spec's
  std::string pool;
  size_t ineligible_nodes = 0;
};

struct StatusView {
  std::string namespace_;  // "" = all namespaces
  std::vector<PoolSummary> pools;
  std::vector<ProfileSummary> profiles;
  std::vector<NodeAssessment> nodes;
  std::vector<std::string> warnings;
};

StatusView BuildStatusView(const Snapshot& snapshot, const std::string& namespace_, int64_t now);

// The condition `type` of `conditions`, or "NoStatus" when `has_status` is false.
ConditionSummary SummarizeCondition(const std::vector<crd::Condition>& conditions,
                                    std::string_view type, bool has_status);

// "3/8" -> {3, 8}; {0, 0} for anything else.
std::pair<int32_t, int32_t> ParseProgress(std::string_view progress);

}  // namespace rdmastack::plugin
