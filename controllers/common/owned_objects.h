#pragma once
// What the caches hold of a custom resource's own objects (DaemonSets, pods, EndpointSlices,
// ConfigMaps): those of its namespace that carry its name in its label. Reads only.

#include <string>
#include <string_view>
#include <vector>

#include "controllers/common/namespaced_cache.h"
#include "controllers/common/owned_pod.h"
#include "operator/k8s/json_object.h"
#include "operator/runtime/object_ptr.h"

namespace rdmastack::controllers {

// A pool or a profile as the owner of objects: its namespace, and the label that names it on
// what it owns (kPoolLabel, kProfileLabel).
struct Owner {
  std::string_view ns;
  std::string_view label;
  std::string_view name;
};

bool OwnedBy(const k8s::JsonObject& object, const Owner& owner);
// The objects of `cache` that `owner` owns.
std::vector<runtime::ObjectPtr> ListOwned(const NamespacedCache& cache, const Owner& owner);
// The cached object `name` of the owner's namespace when the owner owns it, else null.
runtime::ObjectPtr GetOwned(const NamespacedCache& cache, const Owner& owner,
                            const std::string& name);
// The owner's pods, read with their main container `container` (ReadOwnedPod).
std::vector<OwnedPod> ListOwnedPods(const NamespacedCache& pods, const Owner& owner,
                                    std::string_view container);

}  // namespace rdmastack::controllers
