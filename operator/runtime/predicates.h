#pragma once
// Event filters and mappings from a changed object to the requests it should trigger
// (controller-runtime pkg/predicate and pkg/handler).

#include <functional>
#include <string>
#include <vector>

#include "operator/runtime/reconciler.h"
#include "operator/runtime/store.h"

namespace rdmastack::runtime {

// Each filter returns true to let the event through; an unset filter passes everything.
struct Predicate {
  std::function<bool(const k8s::JsonObject&)> create;
  std::function<bool(const k8s::JsonObject& old, const k8s::JsonObject& current)> update;
  std::function<bool(const k8s::JsonObject&)> del;
};

// Drops updates that leave metadata.generation unchanged (status-only writes). Use it on the
// primary resource only: owned objects report progress through status.
Predicate GenerationChanged();
// Drops updates that change nothing but status: a controller's own status writes must not start
// another pass. Spec (generation), deletion, finalizers, labels and annotations pass.
Predicate NotStatusOnly();
// Passes an update only when `changed(old, current)`; creates and deletes always pass.
Predicate UpdatesWhere(
    std::function<bool(const k8s::JsonObject& old, const k8s::JsonObject& current)> changed);

// Maps one object to the requests it triggers.
using MapFunc = std::function<std::vector<Request>(const k8s::JsonObject&)>;

// The object itself.
MapFunc EnqueueSelf();
// Its owners of the given API group and kind (the version is ignored, as controller-runtime
// does). only_controller: only the owner reference with controller=true. Owners live in the
// object's namespace (owner references cannot cross namespaces); for a cluster-scoped owner
// kind pass owner_namespaced=false.
MapFunc EnqueueOwner(std::string owner_group, std::string owner_kind, bool only_controller = true,
                     bool owner_namespaced = true);

// "<namespace>/<value of `label`>": the owner an owned object names by label (nothing when the
// label is absent).
MapFunc EnqueueByLabel(std::string label);
// Every object in `store` (a change that can concern all of them: a node, a shared file).
MapFunc EnqueueAll(const Store& store);
// Every object in `store` of the changed object's namespace (a Secret: the objects that may
// name it).
MapFunc EnqueueAllInNamespace(const Store& store);

// "apps/v1" -> "apps"; "v1" -> "".
std::string GroupOf(std::string_view api_version);

}  // namespace rdmastack::runtime
