#include "controllers/common/node_walk.h"

#include "controllers/common/node_selection.h"
#include "crds/types/json.h"

namespace rdmastack::controllers {
namespace {

std::optional<crd::RdmaNodeStatus> AgentReport(const runtime::Store& rdmanodes,
                                               const std::string& node) {
  const runtime::ObjectPtr r = rdmanodes.Get(node);
  if (r == nullptr) return std::nullopt;
  auto parsed = crd::ParseResource<crd::RdmaNode>(r->value());
  if (!parsed.ok()) return std::nullopt;
  return std::move(parsed->status);
}

}  // namespace

void ForEachNode(const runtime::Store& nodes, const runtime::Store& rdmanodes,
                 const crd::StringMap& selector, const std::function<void(NodeView&)>& visit) {
  for (runtime::ObjectPtr& node : nodes.List()) {
    NodeView view;
    view.name = std::string(node->Name());
    view.labels = node->Labels();
    view.selected = SelectorMatches(selector, view.labels);
    if (view.selected) view.report = AgentReport(rdmanodes, view.name);
    view.object = std::move(node);
    visit(view);
  }
}

bool KeepsWorkload(bool passes, bool runs_here, std::string_view reason) {
  return passes || (runs_here && reason == kAgentNotReporting);
}

}  // namespace rdmastack::controllers
