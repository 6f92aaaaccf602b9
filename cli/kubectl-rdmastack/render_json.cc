#include "cli/kubectl-rdmastack/render_json.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <vector>

#include "base/json_fields.h"

namespace rdmastack::plugin {
namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

using json::Bool;
using json::Int;
using json::Str;
using json::Strings;

void Header(Writer& w, const char* kind) {
  Str(w, "kind", kind);
  Int(w, "schemaVersion", kJsonSchemaVersion);
}

void WriteCondition(Writer& w, const char* key, const ConditionSummary& c) {
  w.Key(key);
  w.StartObject();
  Str(w, "status", c.status);
  Str(w, "reason", c.reason);
  Str(w, "message", c.message);
  w.EndObject();
}

void WriteAgent(Writer& w, const AgentView& a) {
  w.Key("agent");
  w.StartObject();
  Str(w, "state", a.state);
  Bool(w, "reporting", a.reporting);
  Str(w, "since", a.since);
  Str(w, "version", a.version);
  Str(w, "lastReportTime", a.last_report_time);
  w.EndObject();
}

void WriteCheckCounts(Writer& w, const NodeAssessment& n) {
  w.Key("checkCounts");
  w.StartObject();
  Int(w, "pass", static_cast<int64_t>(n.passed));
  Int(w, "fail", static_cast<int64_t>(n.failing));
  Int(w, "warn", static_cast<int64_t>(n.warning));
  Int(w, "unknown", static_cast<int64_t>(n.unknown));
  w.EndObject();
}

void WritePool(Writer& w, const PoolSummary& p) {
  w.StartObject();
  Str(w, "namespace", p.namespace_);
  Str(w, "name", p.name);
  WriteCondition(w, "ready", p.ready);
  w.Key("gateways");
  w.StartObject();
  Int(w, "ready", p.ready_gateways);
  Int(w, "desired", p.desired_gateways);
  w.EndObject();
  Str(w, "library", p.library);
  w.Key("upgrade");
  if (!p.upgrade) {
    w.Null();
  } else {
    w.StartObject();
    Str(w, "state", p.upgrade->state);
    Str(w, "from", p.upgrade->from);
    Str(w, "to", p.upgrade->to);
    Str(w, "strategy", p.upgrade->strategy);
    Int(w, "done", p.upgrade->done);
    Int(w, "total", p.upgrade->total);
    Int(w, "failed", p.upgrade->failed);
    w.EndObject();
  }
  Int(w, "failingNodes", static_cast<int64_t>(p.failing_nodes));
  w.EndObject();
}

void WriteProfile(Writer& w, const ProfileSummary& p) {
  w.StartObject();
  Str(w, "namespace", p.namespace_);
  Str(w, "name", p.name);
  WriteCondition(w, "ready", p.ready);
  w.Key("nodes");
  w.StartObject();
  Int(w, "matched", p.matched);
  Int(w, "eligible", p.eligible);
  Int(w, "ready", p.ready_clients);
  w.EndObject();
  Str(w, "transport", p.transport);
  Str(w, "pool", p.pool);
  Int(w, "ineligibleNodes", static_cast<int64_t>(p.ineligible_nodes));
  w.EndObject();
}

// The fields of a NodeAssessment shared by `status` and `why`.
void WriteAssessmentFields(Writer& w, const NodeAssessment& n) {
  Strings(w, "roles", n.roles);
  Bool(w, "ready", n.ready);
  Str(w, "reason", n.reason);
  WriteCheckCounts(w, n);
  WriteAgent(w, n.agent);
}

std::string_view ExistenceName(NodeExistence e) {
  switch (e) {
    case NodeExistence::kExists: return "yes";
    case NodeExistence::kMissing: return "no";
    default: return "unknown";
  }
}

std::string Finish(rapidjson::StringBuffer& buffer) {
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace

std::string RenderStatusJson(const StatusView& v) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  Header(w, "RdmastackStatus");
  Str(w, "namespace", v.namespace_);
  w.Key("gatewayPools");
  w.StartArray();
  for (const PoolSummary& p : v.pools) WritePool(w, p);
  w.EndArray();
  w.Key("clientProfiles");
  w.StartArray();
  for (const ProfileSummary& p : v.profiles) WriteProfile(w, p);
  w.EndArray();
  w.Key("nodes");
  w.StartArray();
  for (const NodeAssessment& n : v.nodes) {
    w.StartObject();
    Str(w, "name", n.name);
    WriteAssessmentFields(w, n);
    w.EndObject();
  }
  w.EndArray();
  Strings(w, "warnings", v.warnings);
  w.EndObject();
  return Finish(buffer);
}

std::string RenderWhyJson(const WhyView& v) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  Header(w, "RdmastackWhy");
  Str(w, "node", v.node);
  Bool(w, "found", v.found);
  Bool(w, "failing", v.failing);
  WriteAssessmentFields(w, v.assessment);
  w.Key("verdicts");
  w.StartArray();
  for (const VerdictView& verdict : v.assessment.verdicts) {
    w.StartObject();
    Str(w, "capability", verdict.capability);
    Str(w, "status", verdict.status);
    Str(w, "reason", verdict.reason);
    Str(w, "message", verdict.message);
    w.EndObject();
  }
  w.EndArray();
  w.Key("checks");
  w.StartArray();
  for (const crd::CheckResult& c : v.assessment.checks) {
    w.StartObject();
    Str(w, "id", c.id);
    Str(w, "status", std::string(crd::ToString(c.status)));
    Str(w, "reason", c.reason.value_or(""));
    Str(w, "message", c.message.value_or(""));
    Str(w, "remedy", c.remedy.value_or(""));
    w.EndObject();
  }
  w.EndArray();
  w.Key("gpus");
  w.StartArray();
  for (const GpuPathView& g : v.gpus) {
    w.StartObject();
    Str(w, "pciAddress", g.gpu);
    Str(w, "model", g.model);
    Str(w, "nearestNic", g.nic);
    Str(w, "pathType", g.path);
    Str(w, "note", g.note);
    w.EndObject();
  }
  w.EndArray();
  w.Key("rails");
  w.StartArray();
  for (const ProfileRailsView& r : v.rails) {
    w.StartObject();
    Str(w, "clientProfile", r.profile);
    Str(w, "gatewayPool", r.pool);
    Str(w, "maxGpuNicDistance", r.max_distance);
    w.Key("onPoolNetworks");
    w.Bool(r.on_rails);
    w.Key("gpus");
    w.StartArray();
    for (const auto& g : r.gpus) {
      w.StartObject();
      Str(w, "pciAddress", g.gpu);
      Str(w, "nic", g.nic);
      Str(w, "pathType", g.path_type);
      Str(w, "rail", g.rail);
      Str(w, "network", g.network);
      w.Key("withinMax");
      w.Bool(g.within);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("memberships");
  w.StartArray();
  for (const Membership& m : v.memberships) {
    w.StartObject();
    Str(w, "kind", m.kind);
    Str(w, "namespace", m.namespace_);
    Str(w, "name", m.name);
    Str(w, "state", m.state);
    Bool(w, "problem", m.problem);
    Str(w, "reason", m.reason);
    Str(w, "message", m.message);
    Str(w, "since", m.since);
    w.EndObject();
  }
  w.EndArray();
  Str(w, "nodeExists", std::string(v.found ? "yes" : ExistenceName(v.existence)));
  Strings(w, "closeNames", v.close_names);
  Strings(w, "notes", v.notes);
  w.EndObject();
  return Finish(buffer);
}

std::string RenderUpgradeJson(const UpgradeView& v) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  Header(w, "RdmastackUpgrade");
  Str(w, "namespace", v.namespace_);
  Str(w, "name", v.name);
  Bool(w, "inProgress", v.in_progress);
  WriteCondition(w, "upgrading", v.upgrading);
  Str(w, "library", v.library);
  Str(w, "from", v.from);
  Str(w, "to", v.to);
  Str(w, "strategy", v.strategy);
  Str(w, "startTime", v.start_time);
  w.Key("progress");
  w.StartObject();
  Int(w, "done", v.done);
  Int(w, "total", v.total);
  w.EndObject();
  w.Key("phases");
  w.StartObject();
  Int(w, "pending", v.phases.pending);
  Int(w, "startNew", v.phases.start_new);
  Int(w, "validate", v.phases.validate);
  Int(w, "switch", v.phases.switch_);
  Int(w, "drain", v.phases.drain);
  Int(w, "stopOld", v.phases.stop_old);
  Int(w, "done", v.phases.done);
  Int(w, "rollBack", v.phases.roll_back);
  Int(w, "failed", v.phases.failed);
  w.EndObject();
  w.Key("policy");
  w.StartObject();
  Str(w, "strategy", std::string(crd::ToString(v.policy.strategy)));
  Int(w, "maxParallel", v.policy.max_parallel);
  Str(w, "maxUnavailable", v.policy.max_unavailable.ToString());
  Str(w, "validationTimeout", v.policy.validation_timeout);
  Int(w, "drainSeconds", v.policy.drain_seconds);
  Bool(w, "autoRollback", v.policy.auto_rollback);
  Bool(w, "paused", v.policy.paused);
  w.EndObject();
  Bool(w, "nodesListed", v.nodes_listed);
  w.Key("nodes");
  w.StartArray();
  for (const NodeUpgradeRow& r : v.nodes) {
    w.StartObject();
    Str(w, "node", r.node);
    Str(w, "phase", r.phase);
    Str(w, "from", r.from);
    Str(w, "to", r.to);
    Bool(w, "inPlace", r.in_place);
    Str(w, "since", r.since);
    Str(w, "reason", r.reason);
    Str(w, "message", r.message);
    w.EndObject();
  }
  w.EndArray();
  w.Key("failures");
  w.StartArray();
  for (const UpgradeFailure& f : v.failures) {
    w.StartObject();
    Str(w, "node", f.node);
    Str(w, "phase", f.phase);
    Str(w, "reason", f.reason);
    Str(w, "message", f.message);
    w.EndObject();
  }
  w.EndArray();
  Strings(w, "notes", v.notes);
  w.EndObject();
  return Finish(buffer);
}

}  // namespace rdmastack::plugin
