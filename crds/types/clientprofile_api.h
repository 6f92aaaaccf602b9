#pragma once
// The ClientProfile's API beyond its schema (types.h): its condition types, the labels, annotations
// and finalizer it puts on what it owns, on Nodes and on application pods, and the node label's
// name. Namespace of the kind, as its controller's.

#include <string>
#include <string_view>

namespace rdmastack::clientprofile {

// Condition types (reasons and what to do: docs/troubleshooting.md "ClientProfile").
inline constexpr char kReady[] = "Ready";
inline constexpr char kProgressing[] = "Progressing";
inline constexpr char kDegraded[] = "Degraded";
inline constexpr char kNodesEligible[] = "NodesEligible";

inline constexpr char kProfileLabel[] = "clientprofile.rdmastack.io/name";
// On application pods: the profile (of the pod's namespace) whose client configuration the
// webhook gives them; while such a pod runs on a node, the profile's files stay there.
inline constexpr char kWorkloadLabel[] = "rdmastack.io/client-profile";
inline constexpr char kClientComponent[] = "client";
inline constexpr char kUninstallComponent[] = "client-uninstall";
inline constexpr char kFinalizer[] = "rdmastack.io/clientprofile-cleanup";
// Values of a node's profile label: the client runs there (eligible), and is Ready (ready).
inline constexpr char kEligibleValue[] = "eligible";
inline constexpr char kReadyValue[] = "ready";
// The spec.s3User.rotation the keys were made for; a different value makes new keys.
inline constexpr char kS3UserRotationAnnotation[] = "s3user.rdmastack.io/rotation";
// The access key the current one replaced, and when: it keeps working for the grace period.
inline constexpr char kS3UserPreviousKeyAnnotation[] = "s3user.rdmastack.io/previous-access-key";
inline constexpr char kS3UserRotatedAtAnnotation[] = "s3user.rdmastack.io/rotated-at";

// "rdmastack.io/client.<ns>.<profile>" (cut and hashed past 63 characters): the node label that
// schedules the profile's client (eligible) and that workloads select on (ready).
std::string ClientNodeLabel(std::string_view ns, std::string_view profile);

}  // namespace rdmastack::clientprofile
