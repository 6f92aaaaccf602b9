#pragma once
// What the caches hold of a custom resource's own objects (DaemonSets, pods, EndpointSlices,
// ConfigMaps, Services). Ownership is the controller ownerReference, never the label: anyone who
// may create the kind in the namespace can copy a label, and a look-alike taken for ours would be
// counted (its pod "Ready"), published (its address in the EndpointSlices clients and the S3
// user provisioning dial), written over or deleted. The label only selects what the caches hold
// and which owner a change wakes; an object that carries it without the owner's controller
// reference is a look-alike: ignored, and named in a Warning event.

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "controllers/common/namespaced_cache.h"
#include "controllers/common/owned_pod.h"
#include "controllers/common/owner_index.h"
#include "crds/types/types.h"
#include "operator/k8s/json_object.h"
#include "operator/runtime/event_recorder.h"
#include "operator/runtime/object_ptr.h"

namespace rdmastack::controllers {

// A pool or a profile as the owner of objects: its namespace, the label that names it on what it
// owns (kPoolLabel, kProfileLabel), its name and its UID (metadata.uid).
struct Owner {
  std::string_view ns;
  std::string_view label;
  std::string_view name;
  std::string_view uid;
};

// The pool or profile `meta` as an owner whose objects carry `label`. The Owner refers to
// `meta`'s strings: `meta` must outlive it.
Owner OwnerOf(const crd::ObjectMeta& meta, std::string_view label);

// In the owner's namespace, with a controller reference to the owner's UID (an owner without a
// UID owns nothing).
bool OwnedBy(const k8s::JsonObject& object, const Owner& owner);

// An owner's objects of one kind, and the look-alikes: objects in its namespace carrying its
// label whose controller is another object or none.
struct Claimed {
  std::vector<runtime::ObjectPtr> owned;
  std::vector<runtime::ObjectPtr> look_alikes;
};
// Reads the cache's owner index (owner_index.h), so its cost follows the owner's own objects; a
// cache without the index, or an owner label the index does not file, is read whole.
Claimed Claim(const NamespacedCache& cache, const Owner& owner);
// Pods are owned through a DaemonSet: their controller is one of the owner's `daemonsets`.
Claimed ClaimPods(const NamespacedCache& pods, const Owner& owner,
                  const std::vector<runtime::ObjectPtr>& daemonsets);

// The objects of `cache` that `owner` owns.
std::vector<runtime::ObjectPtr> ListOwned(const NamespacedCache& cache, const Owner& owner);
// The cached object `name` of the owner's namespace when the owner owns it, else null.
runtime::ObjectPtr GetOwned(const NamespacedCache& cache, const Owner& owner,
                            const std::string& name);
// OK unless the cache holds an object `name` in the owner's namespace that the owner does not
// own: then FailedPrecondition naming it, and the caller writes nothing over it (an apply would
// adopt it, with whatever else its author put in).
Status CheckNameFree(const NamespacedCache& cache, const Owner& owner, std::string_view kind,
                     const std::string& name);
// Each pod read with its main container `container` (ReadOwnedPod).
std::vector<OwnedPod> ReadPods(const std::vector<runtime::ObjectPtr>& pods,
                               std::string_view container);

// "DaemonSet storage/x carries rdmastack.io/pool=kv but its controller is <uid>|none: ...".
std::string LookAlikeNote(std::string_view kind, const k8s::JsonObject& object, const Owner& owner);
// A Warning event NotOwnedIgnored on `regarding` for each look-alike, related to it.
void RecordLookAlikes(runtime::EventRecorder& events, const k8s::JsonObject& regarding,
                      std::string_view kind, const Owner& owner,
                      const std::vector<runtime::ObjectPtr>& look_alikes);

}  // namespace rdmastack::controllers
