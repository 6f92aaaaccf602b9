#pragma once
// What the pod admission webhook does to a pod that names a ClientProfile (pure; no I/O): whether
// the pod may be admitted at all, and the pod with the profile's RDMA access and client
// configuration added (docs/api.md "Workloads").
//
// Injection is idempotent: injecting into its own output changes nothing, so the API server may
// call the webhook again (reinvocationPolicy IfNeeded) after other webhooks. Where a container
// already sets something differently (an env var, a mount path, a dropped capability), the
// container's own setting is kept and the conflict is named in kConflictsAnnotation. So is a
// field of another type than the Pod schema's where something is added (only a request made by
// hand has one: the API server sends the pod as it decoded it).

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "controllers/clientprofile/client_workload.h"
#include "crds/types/types.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::workload {

// The label a pod carries to ask for a profile (in its own namespace); the webhook's
// objectSelector matches on its existence, so no other pod is ever sent to the webhook.
inline constexpr const char* kProfileLabel = clientprofile::kWorkloadLabel;
// What was injected ("<profile>: <device mode>, config at <path>") and what was not.
inline constexpr char kInjectedAnnotation[] = "clientprofile.rdmastack.io/injected";
inline constexpr char kConflictsAnnotation[] = "clientprofile.rdmastack.io/conflicts";
inline constexpr char kConfigVolume[] = "rdmastack-client-config";
inline constexpr char kDevVolume[] = "rdmastack-dev-infiniband";
inline constexpr char kDevPath[] = "/dev/infiniband";
inline constexpr char kNetworksAnnotation[] = "k8s.v1.cni.cncf.io/networks";

// OK when a pod may use `profile`; otherwise FailedPrecondition with the message the user sees
// (the profile has no workload section, is being deleted, or has no node whose client data plane
// is Ready).
Status CheckAdmissible(const crd::ClientProfile& profile);

// The message for a pod whose label names a profile that does not exist in `ns`.
std::string ProfileNotFoundMessage(std::string_view ns, std::string_view profile);

// `pod` with the profile's node affinity, RDMA device, IPC_LOCK, client configuration mount, env
// and annotations added. `ns` is the pod's namespace (a pod being created may not carry it).
// Precondition: CheckAdmissible(profile) is OK.
k8s::JsonObject InjectClientProfile(const k8s::JsonObject& pod, const crd::ClientProfile& profile,
                                    std::string_view ns);

// RFC 6902 operations that turn `before` into `after`, replacing whole top-level members of
// metadata and spec that differ; an empty array when they are equal.
k8s::JsonObject PodPatch(const k8s::JsonObject& before, const k8s::JsonObject& after);

}  // namespace rdmastack::workload
