#include "cli/kubectl-rdmastack/render_text.h"

#include "cli/kubectl-rdmastack/table.h"
#include "cli/kubectl-rdmastack/text.h"

namespace rdmastack::plugin {
namespace {

std::string Fraction(int32_t a, int32_t b) {
  return std::to_string(a) + "/" + std::to_string(b);
}

std::string NoneFound(std::string_view kinds, const std::string& ns) {
  return "No " + std::string(kinds) + " found" + (ns.empty() ? "" : " in namespace " + ns) + ".\n";
}

std::string UpgradeCell(const std::optional<PoolUpgradeSummary>& u) {
  if (!u) return "";
  std::string cell = u->state + " " + Fraction(u->done, u->total);
  if (u->failed > 0) cell += " (" + std::to_string(u->failed) + " failed)";
  return cell;
}

std::string ChecksCell(const NodeAssessment& n) {
  std::vector<std::string> parts;
  if (n.failing > 0) parts.push_back(std::to_string(n.failing) + " Fail");
  if (n.warning > 0) parts.push_back(std::to_string(n.warning) + " Warn");
  if (n.unknown > 0) parts.push_back(std::to_string(n.unknown) + " Unknown");
  if (parts.empty() && n.passed > 0) return "all Pass";
  return Join(parts, ", ");
}

std::string AgentCell(const AgentView& a) {
  if (a.reporting || a.silent_for < 0) return a.state;
  return a.state + " (" + HumanAge(a.silent_for) + ")";
}

// "Label:" padded so that values line up, as kubectl describe does; a long value folds under
// itself.
constexpr size_t kFieldIndent = 12;
std::string Field(std::string_view label, const std::string& value) {
  std::string head = std::string(label) + ":";
  if (head.size() >= kFieldIndent) return head + " " + value + "\n";
  std::string out = Wrap(value, kFieldIndent, kLineWidth);
  if (out.empty()) return head + "\n";
  return out.replace(0, head.size(), head);
}

std::string PoolsSection(const StatusView& v) {
  if (v.pools.empty()) return NoneFound("GatewayPools", v.namespace_);
  const bool all = v.namespace_.empty();
  std::vector<std::string> headers = {"NAME", "READY", "REASON", "GATEWAYS", "LIBRARY", "UPGRADE"};
  if (all) headers.insert(headers.begin(), "NAMESPACE");
  Table t(headers);
  for (const PoolSummary& p : v.pools) {
    std::vector<std::string> row = {p.name,         p.ready.status,
                                    p.ready.reason, Fraction(p.ready_gateways, p.desired_gateways),
                                    p.library,      UpgradeCell(p.upgrade)};
    if (all) row.insert(row.begin(), p.namespace_);
    t.AddRow(std::move(row));
  }
  return t.Render();
}

std::string ProfilesSection(const StatusView& v) {
  if (v.profiles.empty()) return NoneFound("ClientProfiles", v.namespace_);
  const bool all = v.namespace_.empty();
  std::vector<std::string> headers = {"NAME",    "READY",     "REASON", "ELIGIBLE",
                                      "CLIENTS", "TRANSPORT", "POOL"};
  if (all) headers.insert(headers.begin(), "NAMESPACE");
  Table t(headers);
  for (const ProfileSummary& p : v.profiles) {
    std::vector<std::string> row = {p.name,
                                    p.ready.status,
                                    p.ready.reason,
                                    Fraction(p.eligible, p.matched),
                                    Fraction(p.ready_clients, p.eligible),
                                    p.transport,
                                    p.pool};
    if (all) row.insert(row.begin(), p.namespace_);
    t.AddRow(std::move(row));
  }
  return t.Render();
}

std::string NodesSection(const StatusView& v) {
  if (v.nodes.empty()) return NoneFound("RdmaNodes", "");
  Table t({"NODE", "ROLE", "VERDICT", "REASON", "CHECKS", "AGENT"});
  for (const NodeAssessment& n : v.nodes) {
    t.AddRow({n.name, Join(n.roles, ","), n.ready ? "Ready" : "NotReady", n.reason, ChecksCell(n),
              AgentCell(n.agent)});
  }
  return t.Render();
}

std::string MembershipBlock(const Membership& m) {
  std::string head = m.kind + " " + k8s::ObjectKey(m.namespace_, m.name) + ": " + m.state;
  if (!m.reason.empty()) head += ", " + m.reason;
  if (!m.since.empty()) head += " (since " + m.since + ")";
  return Wrap(head, 2, kLineWidth) + Wrap(m.message, 4, kLineWidth);
}

// What to do about an agent that does not report (docs/troubleshooting.md, RdmaNode conditions).
std::string AgentHint(const AgentView& a) {
  if (a.reporting) return "";
  if (a.state == "Stale") {
    return "its stream is open but silent: read the agent pod's log; deleting the pod restarts a "
           "hung agent. The facts below are its last report.";
  }
  if (a.state == "AgentDisconnected") {
    return "its stream closed: check that the agent pod runs on the node and reaches the "
           "operator's hub. The facts below are its last report.";
  }
  if (a.state == "NeverReported") return "it connected but sent no report: its log says why.";
  return "";
}

std::string NotFoundText(const WhyView& v) {
  std::string out = "No RdmaNode named \"" + v.node + "\": no agent has reported for it.\n";
  switch (v.existence) {
    case NodeExistence::kExists:
      out +=
          Wrap("The Node " + v.node +
                   " exists. Either no GatewayPool or ClientProfile selects it (its nodeSelector "
                   "decides where the agent DaemonSet runs), or the agent there cannot reach the "
                   "operator. Look for the agent pod on the node:",
               0, kLineWidth);
      out += "  kubectl get pods -A -o wide --field-selector spec.nodeName=" + v.node + "\n";
      break;
    case NodeExistence::kMissing:
      out +=
          "There is no Node named \"" + v.node + "\" either: check the name (kubectl get nodes).\n";
      break;
    case NodeExistence::kUnknown:
      out += Wrap(
          "Check the name (kubectl get nodes). If the Node exists, either nothing selects it (no "
          "agent runs there) or its agent cannot reach the operator.",
          0, kLineWidth);
      break;
  }
  if (!v.close_names.empty()) out += "Close names: " + Join(v.close_names, ", ") + "\n";
  return out;
}

std::string VerdictsBlock(const NodeAssessment& n) {
  if (n.verdicts.empty()) {
    return "\n" +
           Field("Verdicts", "none evaluated (no GatewayPool or ClientProfile selects the node)");
  }
  std::string out = "\nVerdicts:\n";
  for (const VerdictView& v : n.verdicts) {
    out += "  " + v.capability + ": " + v.status + ", " + v.reason + "\n";
    if (v.status != "True") out += Wrap(v.message, 4, kLineWidth);
  }
  return out;
}

std::string ChecksBlock(const NodeAssessment& n) {
  if (n.checks.empty()) {
    return "\n" + Field("Checks", n.passed > 0 ? "all " + std::to_string(n.passed) + " pass"
                                               : "none reported");
  }
  std::string out = "\nChecks that did not pass (" + ChecksCell(n) + "; " +
                    std::to_string(n.passed) + " Pass):\n";
  for (const crd::CheckResult& c : n.checks) {
    out += "  " + std::string(crd::ToString(c.status)) + "  " + c.id + ": " +
           c.reason.value_or("") + "\n";
    out += Wrap(c.message.value_or(""), 4, kLineWidth);
    if (c.remedy && !c.remedy->empty()) out += Wrap("Remedy: " + *c.remedy, 4, kLineWidth);
  }
  return out;
}

// One line per GPU: its nearest RDMA NIC, the PCIe path between them, and what else breaks it.
std::string GpusBlock(const std::vector<GpuPathView>& gpus) {
  if (gpus.empty()) return "";
  Table t({"GPU", "MODEL", "NIC", "PATH", "NOTE"});
  for (const GpuPathView& g : gpus) {
    t.AddRow({g.gpu, g.model, g.nic.empty() ? "<none>" : g.nic, g.path, g.note});
  }
  return "\nGPUs and the RDMA NIC nearest each (GPU-direct takes it):\n" + t.Render();
}

// Per profile whose pool names its networks: the NIC each GPU's traffic to the pool takes.
std::string RailsBlock(const std::vector<ProfileRailsView>& rails) {
  std::string out;
  for (const ProfileRailsView& r : rails) {
    const std::string head = "\nClientProfile " + r.profile + " -> GatewayPool " + r.pool + " on " +
                             Join(r.networks, ", ");
    if (!r.on_rails) {
      out += head +
             ": no RDMA NIC of the node is on these networks; each GPU takes its nearest "
             "NIC and reaches the pool through routing\n";
      continue;
    }
    Table t({"GPU", "NIC", "PATH", "RAIL", "NETWORK", "WITHIN " + r.max_distance});
    for (const auto& g : r.gpus) {
      t.AddRow({g.gpu, g.nic.empty() ? "<none>" : g.nic, g.path_type, g.rail.empty() ? "-" : g.rail,
                g.network, g.within ? "yes" : "no"});
    }
    out += head + ", the NIC each GPU takes there:\n" + t.Render();
  }
  return out;
}

std::string AgentLine(const AgentView& a) {
  std::string line = AgentCell(a);
  if (!a.version.empty()) line += ", agent " + a.version;
  if (!a.last_report_time.empty()) line += ", facts reported since " + a.last_report_time;
  return line;
}

std::string PhaseCounts(const crd::UpgradePhaseCounts& c) {
  const std::pair<const char*, int32_t> counts[] = {
      {"pending", c.pending}, {"startNew", c.start_new}, {"validate", c.validate},
      {"switch", c.switch_},  {"drain", c.drain},        {"stopOld", c.stop_old},
      {"done", c.done},       {"rollBack", c.roll_back}, {"failed", c.failed}};
  std::vector<std::string> parts;
  for (const auto& [name, n] : counts) {
    if (n > 0) parts.push_back(std::string(name) + " " + std::to_string(n));
  }
  return Join(parts, ", ");
}

std::string PolicyLine(const crd::UpgradeSpec& p) {
  std::string line = std::string(crd::ToString(p.strategy));
  line += ", maxParallel " + std::to_string(p.max_parallel);
  if (p.strategy == crd::UpgradeStrategy::kInPlace)
    line += ", maxUnavailable " + p.max_unavailable.ToString();
  line += ", validationTimeout " + p.validation_timeout;
  line += ", drainSeconds " + std::to_string(p.drain_seconds);
  line += std::string(", autoRollback ") + (p.auto_rollback ? "on" : "off");
  if (p.paused) line += ", paused";
  return line;
}

}  // namespace

std::string RenderStatusText(const StatusView& v) {
  return "GATEWAYPOOLS\n" + PoolsSection(v) + "\nCLIENTPROFILES\n" + ProfilesSection(v) +
         "\nRDMANODES\n" + NodesSection(v);
}

std::string RenderWhyText(const WhyView& v) {
  std::string out;
  if (!v.found) {
    out += NotFoundText(v);
  } else {
    const NodeAssessment& n = v.assessment;
    out += Field("Node", n.name);
    out += Field("Roles", n.roles.empty() ? "<none>" : Join(n.roles, ", "));
    out += Field("Verdict", n.ready ? "Ready" : "NotReady (" + n.reason + ")");
    out += Field("Agent", AgentLine(n.agent));
    out += Wrap(AgentHint(n.agent), kFieldIndent, kLineWidth);
    out += VerdictsBlock(n);
    out += ChecksBlock(n);
    out += GpusBlock(v.gpus);
    out += RailsBlock(v.rails);
  }
  if (!v.memberships.empty()) {
    out += "\nGatewayPools and ClientProfiles that name the node:\n";
    for (const Membership& m : v.memberships) out += MembershipBlock(m);
  } else if (v.found) {
    out += "\nGatewayPools and ClientProfiles that name the node: none\n";
  }
  for (const std::string& note : v.notes) out += Wrap("Note: " + note, 0, kLineWidth);
  if (v.found && !v.failing) out += "\nNothing fails on " + v.node + ".\n";
  return out;
}

std::string RenderUpgradeText(const UpgradeView& v) {
  std::string out;
  const std::string pool = "GatewayPool " + k8s::ObjectKey(v.namespace_, v.name);
  if (v.in_progress) {
    out += Field("Pool", pool);
    out += Field("Upgrade", v.from + " -> " + v.to + " (" + v.strategy + ")");
    out += Field("State", v.upgrading.reason + ": " + v.upgrading.message);
    std::string progress = Fraction(v.done, v.total) + " nodes done";
    const std::string counts = PhaseCounts(v.phases);
    if (!counts.empty()) progress += " (" + counts + ")";
    out += Field("Progress", progress);
    if (!v.start_time.empty()) {
      out += Field(
          "Started",
          v.start_time + (v.running_for >= 0 ? " (" + HumanAge(v.running_for) + " ago)" : ""));
    }
  } else {
    out += Field("Pool", pool);
    out += Field("Upgrade", "none in progress; libcuobjserver " + v.library);
    out +=
        Field("State", v.upgrading.status + " " + v.upgrading.reason + ": " + v.upgrading.message);
  }
  out += Field("Policy", PolicyLine(v.policy));

  if (v.nodes_listed) {
    out += "\n";
    if (v.nodes.empty()) {
      out += "No node carries a gateway track or upgrade state of this pool.\n";
    } else {
      Table t({"NODE", "PHASE", "FROM", "TO", "SINCE", "REASON"});
      for (const NodeUpgradeRow& r : v.nodes) {
        t.AddRow({r.node, r.phase, r.from, r.to,
                  r.in_phase_for >= 0 ? HumanAge(r.in_phase_for) : "", r.reason});
      }
      out += t.Render();
    }
  }
  if (!v.failures.empty()) {
    out += "\nFailing nodes:\n";
    for (const UpgradeFailure& f : v.failures) {
      std::string head =
          "  " + f.node + (f.phase.empty() ? "" : " (" + f.phase + ")") + ": " + f.reason;
      out += head + "\n" + Wrap(f.message, 4, kLineWidth);
    }
  }
  for (const std::string& note : v.notes) out += Wrap("Note: " + note, 0, kLineWidth);
  return out;
}

}  // namespace rdmastack::plugin
