#pragma once
// Small builders shared by the controllers that render Kubernetes objects (the agent DaemonSet,
// the gateway DaemonSets, Services and EndpointSlices): literal JSON fragments, JSON strings,
// tolerations, node-selector expressions, and the content hash the reconcilers compare.

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "crds/types/label_names.h"
#include "crds/types/types.h"
#include "operator/k8s/json_builder.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::controllers {

// SHA-256 of the rendered object, so that a reconciler writes only when it changes.
inline constexpr char kAppliedHashAnnotation[] = "rdmastack.io/applied-hash";
using crd::kFieldManager;

// A JSON literal written in the source (an empty object if it does not parse: a programming
// error that the golden tests catch).
k8s::JsonObject Obj(std::string_view json);
// A JSON string value.
k8s::JsonObject Str(std::string_view s);

k8s::JsonObject TolerationJson(const crd::Toleration& t);

// The ownerReference that makes the custom resource `kind` (rdmastack.io/v1alpha1) with `meta` the
// controller of an object, so that deleting it deletes the object.
k8s::JsonObject ControllerOwner(std::string_view kind, const crd::ObjectMeta& meta);
// The ownerReference that makes the Node `name` (`uid`) the controller of a per-node object (an
// RdmaNode, a ResourceSlice), so that the garbage collector deletes it with the Node.
k8s::JsonObject NodeControllerOwner(std::string_view name, std::string_view uid);

// Pod spec pieces: {"name","value"} and {"name","valueFrom":{"secretKeyRef"}} env entries, a
// volumeMount, and a hostPath volume.
k8s::JsonObject EnvValue(std::string_view name, std::string_view value);
k8s::JsonObject EnvSecret(std::string_view name, std::string_view secret, std::string_view key);
k8s::JsonObject Mount(std::string_view name, std::string_view path, bool read_only);
k8s::JsonObject HostPathVolume(std::string_view name, std::string_view path, std::string_view type);
// The container of a pod that removes from a node what a deleted or departed owner left there (a
// profile's client files, a pool's IAM directory): `image` (the operator's client image) runs
// `rdmastack-client <args>` as root with every capability dropped and a read-only root, keeps its
// state in `state_dir` (the "state" volume, StateVolume), and turns Ready once the removal is done
// (`rdmastack-client ready`); `host_mount` is its one mount of the host.
k8s::JsonObject HostCleanupContainer(std::string_view name, std::string_view image,
                                     const std::vector<std::string>& args,
                                     std::string_view state_dir, const k8s::JsonObject& host_mount);
k8s::JsonObject StateVolume();  // "state", an emptyDir in memory

// A nodeSelectorTerm (or part of one): each pair as `key In [value]`.
void AppendSelectorExpressions(const crd::StringMap& selector, k8s::JsonBuilder* term);

// Sets kAppliedHashAnnotation to the hash of `object` as rendered so far.
void StampAppliedHash(k8s::JsonBuilder* object);

// The merge patch {"metadata":{"labels":{k: v or null}}} that takes `current` to `desired` for
// the keys `owned` accepts (others are never touched); "" when nothing differs.
std::string LabelPatch(const std::map<std::string, std::string>& current,
                       const std::map<std::string, std::string>& desired,
                       const std::function<bool(std::string_view)>& owned);
// The same for metadata.<field> ("labels" or "annotations"), added to `patch`; true when
// anything differs.
bool AddMetadataMapPatch(std::string_view field, const std::map<std::string, std::string>& current,
                         const std::map<std::string, std::string>& desired,
                         const std::function<bool(std::string_view)>& owned,
                         k8s::JsonBuilder* patch);

}  // namespace rdmastack::controllers
