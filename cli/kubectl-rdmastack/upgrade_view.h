#pragma once
// `kubectl rdmastack upgrade POOL`: a pool's library upgrade, node by node. The pool's status has
// the totals (status.currentUpgrade, the Upgrading condition, failingNodes); each node's place in
// the state machine is the annotation the operator persists on the Node
// (upgrade.gwp.rdmastack.io/<namespace>.<pool>, docs/operations.md), and the node's tracks are
// its gwp.rdmastack.io/ labels. Pure: decoded with the operator's own codec, so both read the
// same format.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/kubectl-rdmastack/snapshot.h"
#include "cli/kubectl-rdmastack/status_view.h"

namespace rdmastack::plugin {

struct NodeUpgradeRow {
  std::string node;
  // The persisted phase (StartNew, Validate, Switch, Drain, StopOld, Done, RollBack, Failed);
  // without a persisted state: Pending (on a track the pool is leaving) or UpToDate (on the
  // spec's track); Unreadable when the annotation does not decode.
  std::string phase;
  std::string from;  // library version (the track name when no version is known for it)
  std::string to;
  bool in_place = false;
  std::string since;          // when the phase began (RFC 3339); "" when unknown
  int64_t in_phase_for = -1;  // seconds since then; -1 when unknown
  std::string reason;         // RollBack and Failed
  std::string message;
};

struct UpgradeFailure {
  std::string node;
  std::string phase;  // RollBack, Failed, or "" when only the pool status names the node
  std::string reason;
  std::string message;
};

struct UpgradeView {
  std::string namespace_;
  std::string name;
  bool in_progress = false;  // status.currentUpgrade is set
  ConditionSummary upgrading;
  std::string library;  // status.library (from->to during an upgrade), else the spec's version
  std::string from;
  std::string to;
  std::string strategy;
  std::string start_time;
  int64_t running_for = -1;  // seconds since start_time; -1 when unknown
  int32_t done = 0;
  int32_t total = 0;
  crd::UpgradePhaseCounts phases;
  crd::UpgradeSpec policy;
  bool nodes_listed = false;  // per-node rows come from the Nodes; false: pool status only
  std::vector<NodeUpgradeRow> nodes;
  std::vector<UpgradeFailure> failures;
  std::vector<std::string> notes;
};

// `nodes`: every Node (nullopt when they could not be listed; `nodes_error` then says why and
// the view shows what the pool's status holds).
UpgradeView BuildUpgradeView(const crd::GatewayPool& pool,
                             const std::optional<std::vector<NodeInfo>>& nodes,
                             const std::string& nodes_error, int64_t now);

}  // namespace rdmastack::plugin
