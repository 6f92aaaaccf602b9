#pragma once
// The node loop of a pool's or profile's pass: every cached Node, whether the owner's
// nodeSelector picks it, and for a picked node what its agent last reported; and the rule both
// owners apply to what already runs on a node whose agent went silent.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "crds/types/reasons.h"
#include "crds/types/types.h"
#include "operator/runtime/store.h"

namespace rdmastack::controllers {

// The reason a pool's node check and a profile's eligibility give a node whose agent has not
// reported yet or went silent.
using crd::reasons::kAgentNotReporting;

struct NodeView {
  runtime::ObjectPtr object;
  std::string name;
  std::map<std::string, std::string> labels;
  bool selected = false;  // the owner's nodeSelector picks the node
  // For a selected node, its RdmaNode's status; nullopt while there is none (no RdmaNode yet,
  // one that does not parse, or one without status).
  std::optional<crd::RdmaNodeStatus> report;
};

// Calls `visit` for every node of `nodes`, in name order.
void ForEachNode(const runtime::Store& nodes, const runtime::Store& rdmanodes,
                 const crd::StringMap& selector, const std::function<void(NodeView&)>& visit);

// Whether what the owner runs on a node stays there: the node passes the owner's checks, or the
// owner runs there already (`runs_here`) and the node fails only because its agent is silent. A
// silent agent does not take a running gateway or client away; a failed check does.
bool KeepsWorkload(bool passes, bool runs_here, std::string_view reason);

}  // namespace rdmastack::controllers
