#include "cli/kubectl-rdmastack/node_assessment.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "cli/kubectl-rdmastack/text.h"
#include "crds/types/rdmanode_api.h"

namespace rdmastack::plugin {
namespace {

struct VerdictKind {
  std::string_view condition;
  std::string_view capability;
  std::string_view role;
  std::optional<crd::Verdict> crd::Verdicts::*verdict;
};

constexpr std::array<VerdictKind, 3> kVerdicts{{
    {rdmanode::kGatewayCapable, "Gateway", "gateway", &crd::Verdicts::gateway},
    {rdmanode::kGPUDirectCapable, "GPUDirect", "client", &crd::Verdicts::gpu_direct},
    {rdmanode::kHostMemoryCapable, "HostMemory", "client", &crd::Verdicts::host_memory},
}};

// What a verdict condition says, or, for an RdmaNode written before the conditions existed,
// the verdict itself. nullopt when the capability was not evaluated.
std::optional<VerdictView> ViewOf(const crd::RdmaNodeStatus& status, const VerdictKind& kind) {
  if (const crd::Condition* c = FindCondition(status.conditions, kind.condition)) {
    if (c->status == crd::ConditionStatus::kUnknown && c->reason == "NotEvaluated")
      return std::nullopt;
    return VerdictView{std::string(kind.capability), std::string(crd::ToString(c->status)),
                       c->reason, c->message};
  }
  if (!status.verdicts || !(*status.verdicts.*kind.verdict)) return std::nullopt;
  const crd::Verdict& v = *(*status.verdicts.*kind.verdict);
  const std::string_view as_condition = v.capable == crd::Capability::kYes  ? "True"
                                        : v.capable == crd::Capability::kNo ? "False"
                                                                            : "Unknown";
  return VerdictView{std::string(kind.capability), std::string(as_condition), v.reason.value_or(""),
                     ""};
}

AgentView AgentOf(const crd::RdmaNodeStatus& status, int64_t now) {
  AgentView a;
  if (status.agent) {
    a.version = status.agent->version.value_or("");
    a.last_report_time = status.agent->last_report_time.value_or("");
  }
  if (const crd::Condition* c = FindCondition(status.conditions, rdmanode::kReporting)) {
    a.reporting = c->status == crd::ConditionStatus::kTrue;
    a.state = c->reason;
    a.since = c->last_transition_time;
    if (!a.reporting) a.silent_for = SecondsSince(c->last_transition_time, now).value_or(-1);
    return a;
  }
  if (status.agent && status.agent->state) {
    a.reporting = *status.agent->state == crd::AgentState::kConnected;
    a.state = std::string(crd::ToString(*status.agent->state));
    return a;
  }
  a.state = "Unknown";
  return a;
}

int CheckOrder(crd::CheckStatus s) {
  switch (s) {
    case crd::CheckStatus::kFail: return 0;
    case crd::CheckStatus::kWarn: return 1;
    default: return 2;
  }
}

}  // namespace

const crd::Condition* FindCondition(const std::vector<crd::Condition>& conditions,
                                    std::string_view type) {
  for (const crd::Condition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

NodeAssessment AssessNode(const crd::RdmaNode& node, int64_t now) {
  NodeAssessment n;
  n.name = node.metadata.name;
  if (!node.status) {
    // The operator creates RdmaNodes from reports, so this is one caught between create and
    // its first status write.
    n.agent.state = "NeverReported";
    n.reason = "NoStatus";
    return n;
  }
  const crd::RdmaNodeStatus& status = *node.status;
  n.agent = AgentOf(status, now);

  for (const VerdictKind& kind : kVerdicts) {
    std::optional<VerdictView> v = ViewOf(status, kind);
    if (!v) continue;
    if (std::find(n.roles.begin(), n.roles.end(), kind.role) == n.roles.end())
      n.roles.emplace_back(kind.role);
    n.verdicts.push_back(std::move(*v));
  }

  for (const crd::CheckResult& c : status.checks) {
    if (c.status == crd::CheckStatus::kPass) {
      ++n.passed;
      continue;
    }
    n.checks.push_back(c);
    if (c.status == crd::CheckStatus::kFail) ++n.failing;
    if (c.status == crd::CheckStatus::kWarn) ++n.warning;
    if (c.status == crd::CheckStatus::kUnknown) ++n.unknown;
  }
  std::stable_sort(n.checks.begin(), n.checks.end(), [](const auto& a, const auto& b) {
    return CheckOrder(a.status) < CheckOrder(b.status);
  });

  const VerdictView* failed_verdict = nullptr;
  for (const VerdictView& v : n.verdicts) {
    if (v.status != "True") {
      failed_verdict = &v;
      break;
    }
  }
  n.ready = n.agent.reporting && failed_verdict == nullptr;
  if (n.ready) return n;
  if (n.failing > 0) {
    n.reason = n.checks.front().reason.value_or(n.checks.front().id);
  } else if (failed_verdict != nullptr) {
    n.reason = failed_verdict->reason;
  } else {
    n.reason = n.agent.state;
  }
  return n;
}

}  // namespace rdmastack::plugin
