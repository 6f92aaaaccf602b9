#pragma once
// Which nodes a pool's or profile's nodeSelector picks (pure).

#include <map>
#include <string>

#include "crds/types/types.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::controllers {

// A nodeSelector matches when every pair is among the node's labels; an empty one matches every
// node (as a Pod's nodeSelector does).
bool SelectorMatches(const crd::StringMap& selector,
                     const std::map<std::string, std::string>& labels);
// The same on a cached object's labels, read in place (no copy of its label map).
bool SelectorMatchesLabelsOf(const crd::StringMap& selector, const k8s::JsonObject& object);

}  // namespace rdmastack::controllers
