#include "agents/node-agent/report/json_report.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include "base/json_fields.h"
#include "base/version.h"
#include "node/checks/check_fields.h"
#include "node/probe/facts_fields.h"

namespace rdmastack::agent {

// The field tables (node/probe/facts_fields.h, node/checks/check_fields.h) name and order every
// key below the top; the top is the report's own.
std::string RenderJson(const node::NodeFacts& facts, const node::Evaluation& ev) {
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  json::Int(w, "schemaVersion", kReportSchemaVersion);
  json::Str(w, "agentVersion", kVersion);
  json::Str(w, "root", facts.root);
  json::Str(w, "role", node::RoleName(ev.requirements.role));
  json::WriteFields(w, ev);  // requirements, ready, transport, verdicts, checks
  json::Member(w, "facts", facts);
  json::Member(w, "issues", facts.issues);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

}  // namespace rdmastack::agent
