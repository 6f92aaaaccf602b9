#pragma once
// Who may open an AgentHub stream: the pure decision over what the agent claims (Hello), what the
// API server says about its token (TokenReview) and the Pod the token is bound to. The hub's I/O
// shell (agent_authenticator.h) gathers the inputs; everything that can refuse an agent is here,
// so that each refusal is table-tested.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "operator/k8s/json_object.h"
#include "servers/agenthub/agent_events.h"

namespace rdmastack::agenthub {

// The parts of a TokenReview status the decision reads.
struct TokenReviewResult {
  bool authenticated = false;
  std::string error;  // status.error (why the API server did not authenticate the token)
  std::string username;
  std::vector<std::string> audiences;
  // user.extra of a pod-bound ServiceAccount token ("" when absent).
  std::string pod_name;
  std::string pod_uid;
  std::string node_name;
};

// status of a TokenReview (authenticated, user{username, extra}, audiences, error).
TokenReviewResult ParseTokenReviewStatus(const k8s::JsonObject& status);

// The Pod the token names, as read from the API server; nullopt when it does not exist.
struct BoundPod {
  std::string uid;
  std::string node_name;  // spec.nodeName
  // Its ownerReference with controller: true, if any.
  std::optional<k8s::OwnerReference> controller;
};
BoundPod BoundPodFromObject(const k8s::JsonObject& pod);

struct AgentPolicy {
  // The only ServiceAccount whose tokens are accepted.
  std::string service_account_namespace;
  std::string service_account_name;
  std::string audience = "rdmastack-agenthub";
  // The DaemonSet (in the ServiceAccount's namespace) whose pods alone may connect: a pod that
  // merely runs as the ServiceAccount is refused. "" skips the check (tests with bare pods).
  std::string daemonset_name;
};

// The agent DaemonSet's uid as read from the API server; nullopt when it does not exist.
using DaemonSetUid = std::optional<std::string>;

struct HelloClaim {
  std::string node_name;
  std::string agent_version;
  bool has_token = false;
};

// Bounds on what a Hello may carry, checked before anything else reads it (before the token is
// reviewed, the Hello is queued, or its node name reaches a log line, an Event or a cache): a
// stream that has not authenticated must not be able to make the hub hold or write megabytes.
inline constexpr size_t kMaxNodeNameBytes = 253;  // a Node's name is a DNS-1123 subdomain
inline constexpr size_t kMaxAgentVersionBytes = 64;
inline constexpr size_t kMaxTokenBytes = 16 * 1024;  // a projected token is about 1 KiB

// The outcome. `code` is kOk, kInvalidArgument, kUnauthenticated, kPermissionDenied or
// kUnavailable (the review or the Pod lookup failed; nothing is wrong with the agent).
struct AdmissionDecision {
  StatusCode code = StatusCode::kOk;
  std::string reason;      // CamelCase, stable: metrics label, event reason, troubleshooting row
  std::string message;     // the gRPC status message: what is wrong and what to do
  AgentIdentity identity;  // filled when code is kOk

  bool accepted() const { return code == StatusCode::kOk; }
};

// A refusal (kMalformedHello, naming the field and its size, never echoing it) when `node_name`
// is not a DNS-1123 subdomain or a field is over its bound; nullopt when the shape is fine. An
// empty node name passes here: DecideFromToken refuses it with its own reason.
std::optional<AdmissionDecision> CheckHelloShape(std::string_view node_name,
                                                 std::string_view agent_version,
                                                 size_t token_bytes);

// Refusal reasons (the `reason` of a refused decision).
inline constexpr const char* kReasonNoNodeName = "NoNodeName";
inline constexpr const char* kReasonMalformedHello = "MalformedHello";
inline constexpr const char* kReasonNoToken = "NoToken";
inline constexpr const char* kReasonTokenExpired = "TokenExpired";
inline constexpr const char* kReasonWrongAudience = "WrongAudience";
inline constexpr const char* kReasonTokenRejected = "TokenRejected";
inline constexpr const char* kReasonWrongServiceAccount = "WrongServiceAccount";
inline constexpr const char* kReasonNotPodBound = "TokenNotPodBound";
inline constexpr const char* kReasonBoundPodGone = "BoundPodGone";
inline constexpr const char* kReasonNodeMismatch = "NodeMismatch";
inline constexpr const char* kReasonNotAgentPod = "NotAgentPod";
inline constexpr const char* kReasonReviewUnavailable = "ReviewUnavailable";
inline constexpr const char* kReasonShuttingDown = "HubShuttingDown";

// Everything decidable before the Pod is read: the claim and the TokenReview. An accepted result
// here means "read the Pod review.pod_name in the ServiceAccount's namespace, then call
// DecideWithPod"; its identity is not final yet.
AdmissionDecision DecideFromToken(const HelloClaim& claim, const TokenReviewResult& review,
                                  const AgentPolicy& policy);

// The final decision once the bound Pod (nullopt: it does not exist) and, when the policy names
// a DaemonSet, that DaemonSet's uid have been read.
AdmissionDecision DecideWithPod(const HelloClaim& claim, const TokenReviewResult& review,
                                const std::optional<BoundPod>& pod, const AgentPolicy& policy,
                                const DaemonSetUid& daemonset_uid = std::nullopt);

// Both steps at once (what the hub does, minus the I/O).
AdmissionDecision Decide(const HelloClaim& claim, const TokenReviewResult& review,
                         const std::optional<BoundPod>& pod, const AgentPolicy& policy,
                         const DaemonSetUid& daemonset_uid = std::nullopt);

// A refusal for a failed review or Pod read: UNAVAILABLE, the agent retries with backoff.
AdmissionDecision Unavailable(const std::string& what, const Status& status);
// UNAVAILABLE for a Hello still queued when the hub stops (reason HubShuttingDown).
AdmissionDecision ShuttingDownRefusal();

}  // namespace rdmastack::agenthub
