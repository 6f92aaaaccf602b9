#pragma once
// What one RdmaNode says about its node, in the terms a person asks about: which roles it was
// evaluated for, whether it is Ready, why not, and whether its agent still reports. Pure; shared
// by `status` (one row) and `why` (the whole story).

#include <cstdint>
#include <string>
#include <vector>

#include "crds/types/types.h"

namespace rdmastack::plugin {

// One verdict condition (GatewayCapable, GPUDirectCapable, HostMemoryCapable) that was evaluated.
struct VerdictView {
  std::string capability;  // "Gateway", "GPUDirect", "HostMemory"
  std::string status;      // "True", "False", "Unknown"
  std::string reason;
  std::string message;
};

struct AgentView {
  // The Reporting condition's reason (Reporting, Stale, AgentDisconnected, NeverReported), else
  // status.agent.state, else "Unknown".
  std::string state;
  bool reporting = false;
  std::string since;        // when the Reporting condition last changed (RFC 3339)
  int64_t silent_for = -1;  // seconds since Reporting turned False; -1 when reporting or unknown
  std::string version;
  std::string last_report_time;  // when the current report first arrived
};

struct NodeAssessment {
  std::string name;
  // "gateway" when a GatewayPool selects the node, "client" when a ClientProfile does: the
  // verdicts that were evaluated (NotEvaluated ones are not roles).
  std::vector<std::string> roles;
  bool ready = false;
  // Not ready: the first failing check's reason, else the failing verdict's, else the agent's
  // state. Ready: "".
  std::string reason;
  AgentView agent;
  std::vector<VerdictView> verdicts;     // evaluated ones, in condition order
  std::vector<crd::CheckResult> checks;  // every check not Pass: Fail first, then Warn, Unknown
  size_t passed = 0;                     // Pass checks
  size_t failing = 0;                    // Fail checks
  size_t warning = 0;                    // Warn checks
  size_t unknown = 0;                    // Unknown checks
};

// `now`: unix seconds, for how long a silent agent has been silent.
NodeAssessment AssessNode(const crd::RdmaNode& node, int64_t now);

// First condition of `type`, or nullptr.
const crd::Condition* FindCondition(const std::vector<crd::Condition>& conditions,
                                    std::string_view type);
// Not on a temporary: the pointer would dangle.
const crd::Condition* FindCondition(std::vector<crd::Condition>&& conditions,
                                    std::string_view type) = delete;

}  // namespace rdmastack::plugin
