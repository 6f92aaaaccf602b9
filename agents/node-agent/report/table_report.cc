#include "agents/node-agent/report/table_report.h"

#include <algorithm>

namespace rdmastack::agent {
namespace {

int Severity(node::CheckStatus s) {
  switch (s) {
    case node::CheckStatus::kFail: return 0;
    case node::CheckStatus::kUnknown: return 1;
    case node::CheckStatus::kWarn: return 2;
    case node::CheckStatus::kPass: return 3;
  }
  return 3;
}

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

std::string RenderTable(const node::NodeFacts& facts, const node::Evaluation& ev) {
  std::vector<const node::CheckResult*> rows;
  for (const auto& c : ev.checks) rows.push_back(&c);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const node::CheckResult* a, const node::CheckResult* b) {
                     return Severity(a->status) < Severity(b->status);
                   });
  size_t id_w = 5, reason_w = 6;
  for (const node::CheckResult* c : rows) {
    id_w = std::max(id_w, c->id.size());
    reason_w = std::max(reason_w, c->reason.size());
  }
  std::string out = "root " + facts.root + "  role " + node::RoleName(ev.requirements.role) +
                    "  kernel " + (facts.kernel.release.empty() ? "?" : facts.kernel.release) +
                    "\n\n";
  out += Pad("STATUS", 8) + Pad("CHECK", id_w + 2) + Pad("REASON", reason_w + 2) + "MESSAGE\n";
  for (const node::CheckResult* c : rows) {
    out += Pad(node::CheckStatusName(c->status), 8) + Pad(c->id, id_w + 2) +
           Pad(c->reason, reason_w + 2) + c->message + "\n";
    if (c->status != node::CheckStatus::kPass && !c->remedy.empty()) {
      out += std::string(8, ' ') + "remedy: " + c->remedy + "\n";
    }
  }
  out += "\nVERDICTS\n";
  for (const auto& v : ev.verdicts) {
    out += "  " + Pad(v.capability, 12) + (v.capable ? "capable" : "NOT capable") + "  " + v.reason;
    if (!v.via.empty()) out += "  via " + v.via;
    out += "  (" + v.message + ")\n";
  }
  if (ev.requirements.role == node::Role::kClient) {
    out += "\nREADY: " + std::string(ev.ready ? "yes, transport " + ev.selected_transport : "no") +
           "\n";
  } else {
    out += "\nREADY: " + std::string(ev.ready ? "yes" : "no") + "\n";
  }
  return out;
}

}  // namespace rdmastack::agent
