#pragma once
// Which Node label keys the operator's Node cache keeps (pure): the keys some live GatewayPool's
// or ClientProfile's nodeSelector names, plus the operator's own label domains. A Node carries
// dozens of labels (101 on the scale bench's nodes) and the cache needs only these.
//
// A nodeSelector in our CRDs is a plain map (as a Pod's nodeSelector), so its keys are all it
// names; there are no matchExpressions to read.

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "crds/types/types.h"
#include "operator/k8s/json_object.h"
#include "operator/runtime/object_ptr.h"

namespace rdmastack::controllers {

// The label keys the operator writes and reads back on Nodes: "rdmastack.io/..." (the node-label
// controller's verdicts, a profile's client label rdmastack.io/client.<ns>.<profile>) and
// "gwp.rdmastack.io/..." (a pool's track labels). Kept whatever the selectors say. Other
// *.rdmastack.io domains (a user's node-role.rdmastack.io/gpu) are not ours and follow the rule
// for any key.
bool IsOperatorNodeLabel(std::string_view key);

// The keys of one nodeSelector.
std::set<std::string> SelectorKeys(const crd::StringMap& selector);
// The keys of the spec.nodeSelector of a cached GatewayPool or ClientProfile.
std::set<std::string> SelectorKeysOf(const k8s::JsonObject& owner);
// The union over `owners` (the live pools and profiles): the label keys the Node cache keeps
// beside the operator's own.
std::set<std::string> LabelKeysToKeep(const std::vector<runtime::ObjectPtr>& owners);

// Whether a cache that kept `kept` (and the operator's own keys) holds every key in `keys`, so
// that a selector naming them is matched against the same labels the API server has.
bool KeysCovered(const std::set<std::string>& kept, const std::set<std::string>& keys);

// `node` with only the labels `keep` says yes to (every other field untouched).
k8s::JsonObject KeepLabels(k8s::JsonObject node, const std::set<std::string>& keep);

}  // namespace rdmastack::controllers
