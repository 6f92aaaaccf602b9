#pragma once
// What the plugin read from the cluster, decoded into the typed CRD structs (crds/types). Pure:
// the shell lists the objects, this turns them into values the views take. An object that does
// not decode (an operator newer than the plugin, a hand-edited status) is skipped with a warning
// line instead of failing the whole command: one odd object must not hide the others.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "crds/types/types.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::plugin {

// The parts of a core Node the plugin reads: the operator keeps a pool's per-node upgrade state
// in an annotation and the node's tracks in labels (crds/types/node_upgrade.h).
struct NodeInfo {
  std::string name;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
};

struct Snapshot {
  std::vector<crd::GatewayPool> pools;       // by namespace, then name
  std::vector<crd::ClientProfile> profiles;  // by namespace, then name
  std::vector<crd::RdmaNode> nodes;          // by name
  std::vector<std::string> warnings;         // one line per object that could not be read
};

Snapshot DecodeSnapshot(const std::vector<k8s::JsonObject>& pools,
                        const std::vector<k8s::JsonObject>& profiles,
                        const std::vector<k8s::JsonObject>& nodes);

// The pool, or a warning line in `warnings`.
std::optional<crd::GatewayPool> DecodePool(const k8s::JsonObject& object,
                                           std::vector<std::string>& warnings);

NodeInfo DecodeNode(const k8s::JsonObject& node);

// "namespace/name".
std::string QualifiedName(const crd::ObjectMeta& meta);

}  // namespace rdmastack::plugin
